/**
 * One namespace per test file: a topic prefix, consumer groups, transactional ids and a Redis key
 * prefix no other file (or earlier run) uses, so files never see each other's data even when they
 * run at the same time against the same stack.
 */
import { randomBytes } from 'node:crypto';
import { namespacedTopicName, type TopicSpec } from '@toolgate/platform';
import type { Kafka } from 'kafkajs';
import type { Redis } from 'ioredis';

/** Names inside one test file's namespace. */
export interface TestNamespace {
  /** The namespace itself, e.g. `t-kafka-tx-m3x9q1-5f2a9c`. */
  readonly id: string;
  /** A topic name in the namespace: `<id>.<name>`. */
  topic(name: string): string;
  /** A consumer group id in the namespace. */
  group(name: string): string;
  /** A transactional id in the namespace. */
  transactionalId(name: string): string;
  /** Prefix of every Redis key of the namespace: `<id>:`. */
  readonly redisPrefix: string;
  /** A Redis key in the namespace. */
  key(name: string): string;
}

/** A fresh namespace; `label` (letters, digits, `-`) says which file it belongs to. */
export function testNamespace(label: string): TestNamespace {
  const id = `t-${label}-${Date.now().toString(36)}-${randomBytes(3).toString('hex')}`;
  return {
    id,
    topic: (name) => namespacedTopicName(id, name),
    group: (name) => `${id}.${name}`,
    transactionalId: (name) => `${id}.${name}`,
    redisPrefix: `${id}:`,
    key: (name) => `${id}:${name}`,
  };
}

/** Deletes the namespace's topics and Redis keys: an `afterAll` courtesy to the shared stack. */
export async function dropNamespace(
  ns: TestNamespace,
  clients: { readonly kafka?: Kafka; readonly redis?: Redis },
): Promise<void> {
  if (clients.kafka) {
    const admin = clients.kafka.admin();
    await admin.connect();
    try {
      const topics = (await admin.listTopics()).filter((t) => t.startsWith(`${ns.id}.`));
      if (topics.length > 0) await admin.deleteTopics({ topics });
    } finally {
      await admin.disconnect();
    }
  }
  if (clients.redis) {
    let cursor = '0';
    do {
      const [next, keys] = await clients.redis.scan(
        cursor,
        'MATCH',
        `${ns.redisPrefix}*`,
        'COUNT',
        500,
      );
      if (keys.length > 0) await clients.redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  }
}

/** A test topic's spec: `partitions` partitions, kept an hour, deleted with its namespace. */
export function testTopicSpec(name: string, partitions = 1): TopicSpec {
  return {
    name,
    partitions,
    retentionMs: 3_600_000,
    segmentMs: 3_600_000,
    cleanupPolicy: 'delete',
    role: 'pipeline',
    key: 'key',
  };
}
