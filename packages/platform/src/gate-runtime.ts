/**
 * Opens what the stages of one process share: the Kafka bus, the registry codec (with every
 * message schema registered), the Redis store, the shared object store seeded with the
 * deployment's objects, and the ladder's facts. `close()` releases them in reverse order.
 */
import { createGate, MESSAGE_SCHEMAS, type Deployment } from '@toolgate/shared';
import { createBus, type Bus } from './bus.js';
import { createCodec, type Codec } from './codec.js';
import type { Config } from './config.js';
import { createGateOutputs, type GateOutputs } from './gate-outputs.js';
import { gateTopics, type GateTopics } from './gate-topics.js';
import type { Logger } from './logger.js';
import { createRedisObjectStore, type RedisObjectStore } from './redis-object-store.js';
import { createStore, type Store } from './store.js';
import { topicsFor, TOPIC_NAMES, type TopicShortName } from './topics.js';

/** The namespace of the deployment's objects in the shared store. */
export const OBJECT_NAMESPACE = 'objects';

/** What {@link openGateRuntime} opened. */
export interface GateRuntime {
  readonly bus: Bus;
  readonly codec: Codec;
  readonly store: Store;
  readonly objects: RedisObjectStore;
  readonly topics: GateTopics;
  readonly outputs: GateOutputs;
  readonly gate: ReturnType<typeof createGate>;
  /** Closes the store and the bus; idempotent. */
  close(): Promise<void>;
}

/**
 * Connects, creates the deployment's topics when missing, registers every message schema and
 * seeds the deployment's objects (only those absent). Throws a Fault when Kafka, the registry or
 * Redis cannot be reached, after closing what it opened.
 */
export async function openGateRuntime(
  config: Config,
  deployment: Deployment,
  logger: Logger,
): Promise<GateRuntime> {
  const bus = createBus({
    brokers: [...config.kafkaBrokers],
    clientId: `toolgate-${config.instanceId}`,
    logger,
  });
  const store = createStore({
    url: config.redisUrl,
    prefix: config.redisPrefix,
    logger,
    connectionName: `toolgate-${config.instanceId}`,
  });
  const close = async () => {
    await store.close();
    await bus.close();
  };
  try {
    await store.ping();
    const tools = deployment.tools.map((t) => t.name);
    const topics = gateTopics(config.topicPrefix);
    await bus.ensureTopics(
      topicsFor(tools).map((t) => ({ ...t, name: `${config.topicPrefix}${t.name}` })),
    );
    const codec = createCodec({
      registryUrl: config.schemaRegistryUrl,
      logger,
      compatibility: 'NONE',
    });
    await registerSchemas(codec, topics, tools);
    const objects = createRedisObjectStore(store, OBJECT_NAMESPACE);
    const seeded = await objects.seed(deployment.seed ?? []);
    if (seeded > 0) logger.info({ seeded }, 'seeded the deployment objects that were missing');
    // A deployment with a store of its own resolves from it; otherwise from the shared store.
    const gate = createGate(deployment, deployment.objects === undefined ? { objects } : {});
    return {
      bus,
      codec,
      store,
      objects,
      topics,
      outputs: createGateOutputs(topics, config.integrityKey),
      gate,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

async function registerSchemas(
  codec: Codec,
  topics: GateTopics,
  tools: readonly string[],
): Promise<void> {
  const fixed = (Object.keys(TOPIC_NAMES) as TopicShortName[]).filter((t) => t !== 'quarantine');
  await Promise.all([
    ...fixed.map((t) => codec.register(`${topics[t]}-value`, MESSAGE_SCHEMAS[t])),
    ...tools.map((tool) =>
      codec.register(`${topics.command(tool)}-value`, MESSAGE_SCHEMAS.commands),
    ),
  ]);
}
