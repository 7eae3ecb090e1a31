/**
 * Sets `message.timestamp.type` on topics that exist with another one than their spec declares: a
 * proposals topic created before it was declared `LogAppendTime` would otherwise keep letting its
 * writers choose the time their calls are rated in.
 */
import kafkajs, { type Admin } from 'kafkajs';
import type { TopicSpec } from '../topics.js';

const { ConfigResourceTypes, ConfigSource } = kafkajs;

const TIMESTAMP_TYPE = 'message.timestamp.type';

/**
 * Aligns each existing topic of `specs` with its declared timestamp type and returns the names it
 * changed. Kafka's AlterConfigs (the one kafkajs speaks) replaces a topic's whole set of overrides,
 * so the topic's other overrides are read first and written back with the new type.
 */
export async function alignTimestampTypes(
  admin: Admin,
  specs: readonly TopicSpec[],
): Promise<string[]> {
  if (specs.length === 0) return [];
  const { resources } = await admin.describeConfigs({
    includeSynonyms: false,
    resources: specs.map((s) => ({ type: ConfigResourceTypes.TOPIC, name: s.name })),
  });
  const changed: string[] = [];
  for (const spec of specs) {
    const described = resources.find((r) => r.resourceName === spec.name);
    if (described === undefined || described.errorCode !== 0) {
      throw new Error(
        `cannot read the configuration of topic ${spec.name}: ${described?.errorMessage ?? 'not described'}`,
      );
    }
    const current = described.configEntries.find((e) => e.configName === TIMESTAMP_TYPE);
    if (current?.configValue === spec.timestampType) continue;
    const overrides = described.configEntries
      .filter(
        (e) => e.configSource === ConfigSource.TOPIC_CONFIG && e.configName !== TIMESTAMP_TYPE,
      )
      .map((e) => ({ name: e.configName, value: e.configValue }));
    await admin.alterConfigs({
      validateOnly: false,
      resources: [
        {
          type: ConfigResourceTypes.TOPIC,
          name: spec.name,
          configEntries: [...overrides, { name: TIMESTAMP_TYPE, value: spec.timestampType }],
        },
      ],
    });
    changed.push(spec.name);
  }
  return changed;
}
