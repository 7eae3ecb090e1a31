/**
 * The admin client and what the gate does with it besides ACLs: create topics and wait for their
 * leaders, read offsets, and read which topics a group's members subscribe to.
 */
import kafkajs, { type Admin, type Kafka } from 'kafkajs';
import type { AdapterLogger } from '../adapter-logger.js';
import { topicConfigEntries, type TopicSpec } from '../topics.js';
import type { Bus } from './bus-types.js';
import { attempt } from './attempt.js';
import { alignTimestampTypes } from './topic-timestamps.js';

const { AssignerProtocol } = kafkajs;

/** The admin client of a bus, shared by its topic and ACL operations. */
export type LazyAdmin = ReturnType<typeof lazyAdmin>;

/** One admin client, connected on first use and reconnected after a failed connect. */
export function lazyAdmin(kafka: Kafka) {
  let connected: Promise<Admin> | undefined;
  const get = (): Promise<Admin> => {
    connected ??= (async () => {
      const admin = kafka.admin();
      await admin.connect();
      return admin;
    })();
    connected.catch(() => (connected = undefined));
    return connected;
  };
  const close = async (): Promise<void> => {
    const pending = connected;
    connected = undefined;
    if (pending) await (await pending.catch(() => undefined))?.disconnect();
  };
  return { get, close };
}

async function warnAboutPartitions(
  admin: Admin,
  specs: readonly TopicSpec[],
  logger: AdapterLogger,
): Promise<void> {
  if (specs.length === 0) return;
  const { topics } = await admin.fetchTopicMetadata({ topics: specs.map((s) => s.name) });
  for (const t of topics) {
    const declared = specs.find((s) => s.name === t.name)?.partitions ?? 0;
    if (t.partitions.length < declared) {
      logger.warn(
        { topic: t.name, partitions: t.partitions.length, declared },
        'topic has fewer partitions than declared; keys may not spread as planned',
      );
    }
  }
}

// Right after creation a KRaft broker may answer UNKNOWN_TOPIC_OR_PARTITION for a while, which
// kafkajs's own `waitForLeaders` does not retry.
const NOT_READY_YET: ReadonlySet<unknown> = new Set([
  'UNKNOWN_TOPIC_OR_PARTITION',
  'LEADER_NOT_AVAILABLE',
]);

/** Resolves when every partition of `names` has a leader; rejects after `timeoutMs`. */
async function waitForLeaders(
  admin: Admin,
  names: readonly string[],
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const { topics } = await admin.fetchTopicMetadata({ topics: [...names] });
      if (topics.every((t) => t.partitions.length > 0 && t.partitions.every((p) => p.leader >= 0)))
        return;
    } catch (error) {
      if (!NOT_READY_YET.has((error as { type?: unknown }).type)) throw error;
    }
    if (Date.now() > deadline)
      throw new Error(`topics ${names.join(', ')} have no leaders after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

// A partition just created (or whose leader moves) answers NOT_LEADER_FOR_PARTITION for a moment;
// kafkajs's fetchTopicOffsets gives up on it at once.
const SETTLING: ReadonlySet<unknown> = new Set([...NOT_READY_YET, 'NOT_LEADER_FOR_PARTITION']);

/** Runs `work` again every 100 ms while a partition is settling, for at most `timeoutMs`. */
async function whileSettling<T>(timeoutMs: number, work: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await work();
    } catch (error) {
      if (!SETTLING.has((error as { type?: unknown }).type) || Date.now() > deadline) throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** What {@link topicAdmin} needs of the bus's options. */
export interface TopicAdminOptions {
  readonly logger: AdapterLogger;
  readonly requestTimeoutMs?: number;
}

/** The bus's topic and offset operations, on `admin`. */
export function topicAdmin(
  admin: LazyAdmin,
  options: TopicAdminOptions,
): Pick<
  Bus,
  | 'ensureTopics'
  | 'committedOffset'
  | 'latestOffsets'
  | 'offsetsAt'
  | 'groupTopics'
  | 'unseenTopics'
> {
  return {
    ensureTopics: (specs) =>
      attempt('create topics', async () => {
        const a = await admin.get();
        const existing = new Set(await a.listTopics());
        const missing = specs.filter((s) => !existing.has(s.name));
        const present = specs.filter((s) => existing.has(s.name));
        await warnAboutPartitions(a, present, options.logger);
        for (const name of await alignTimestampTypes(a, present)) {
          options.logger.warn(
            { topic: name },
            "set the topic's timestamp type to the declared one",
          );
        }
        if (missing.length === 0) return [];
        await a.createTopics({
          // kafkajs's own wait gives up on UNKNOWN_TOPIC_OR_PARTITION, which a KRaft broker under
          // load answers for a while after creating a topic; waitForLeaders below retries it.
          waitForLeaders: false,
          topics: missing.map((s) => ({
            topic: s.name,
            numPartitions: s.partitions,
            configEntries: topicConfigEntries(s).map((e) => ({ ...e })),
          })),
        });
        await waitForLeaders(
          a,
          missing.map((s) => s.name),
          options.requestTimeoutMs ?? 30_000,
        );
        return missing.map((s) => s.name);
      }),
    committedOffset: (groupId, topic, partition) =>
      attempt(`fetch the offsets of ${groupId}`, async () => {
        const [offsets] = await (await admin.get()).fetchOffsets({ groupId, topics: [topic] });
        const found = offsets?.partitions.find((p) => p.partition === partition)?.offset;
        return found === undefined || BigInt(found) < 0n ? undefined : found;
      }),
    latestOffsets: (topic) =>
      attempt(`fetch the latest offsets of ${topic}`, async () => {
        const a = await admin.get();
        const timeoutMs = options.requestTimeoutMs ?? 30_000;
        const offsets = await whileSettling(timeoutMs, () => a.fetchTopicOffsets(topic));
        return offsets
          .map((p) => ({ topic, partition: p.partition, offset: p.high }))
          .sort((x, y) => x.partition - y.partition);
      }),
    offsetsAt: (topic, timestamp) =>
      attempt(`fetch the offsets of ${topic} at ${new Date(timestamp).toISOString()}`, async () => {
        const a = await admin.get();
        const timeoutMs = options.requestTimeoutMs ?? 30_000;
        const offsets = await whileSettling(timeoutMs, () =>
          timestamp <= 0
            ? a.fetchTopicOffsets(topic).then((ps) => ps.map((p) => ({ ...p, offset: p.low })))
            : a.fetchTopicOffsetsByTimestamp(topic, timestamp),
        );
        return offsets
          .map((p) => ({ topic, partition: p.partition, offset: p.offset }))
          .sort((x, y) => x.partition - y.partition);
      }),
    groupTopics: (groupId) =>
      attempt(`describe the group ${groupId}`, async () => {
        const { groups } = await (await admin.get()).describeGroups([groupId]);
        const members = groups.find((g) => g.groupId === groupId)?.members ?? [];
        const topics = members.flatMap(
          (m) => AssignerProtocol.MemberMetadata.decode(m.memberMetadata)?.topics ?? [],
        );
        return [...new Set(topics)].sort();
      }),
    unseenTopics: (topics) =>
      attempt('list topics', async () => {
        const seen = new Set(await (await admin.get()).listTopics());
        return topics.filter((t) => !seen.has(t));
      }),
  };
}
