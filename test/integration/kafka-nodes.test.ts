/**
 * The three-node stack (TOOLGATE_STACK_KAFKA_NODES=3): every topic replicated thrice with two in
 * sync, and `acks=all` writes that go on while one node is killed and after it is started again.
 * On a one-node stack, or a Kafka the stack did not start, there is nothing to kill: skipped.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { Admin } from 'kafkajs';
import { TOPIC_NAMES } from '@toolgate/platform';
import { kafkaNode } from '../../infra/kafka-node.js';
import { eventually, within } from '../support/deadline.js';
import { dropNamespace, provisionNamespace, testNamespace } from '../support/namespace.js';
import { kafkaClient, stackConfig } from '../support/stack.js';

const config = stackConfig();
const clustered = config.kafkaNodes.length === 3 && !config.external.has('kafka');
const kafka = kafkaClient('kafka-nodes-test');
const ns = testNamespace('kafka-nodes');
const VICTIM = 3;

async function withAdmin<T>(use: (admin: Admin) => Promise<T>): Promise<T> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    return await use(admin);
  } finally {
    await admin.disconnect();
  }
}

/** Replica count and `min.insync.replicas` of each of `topics`. */
async function replication(topics: readonly string[]): Promise<Record<string, [number, string]>> {
  return withAdmin(async (admin) => {
    const { topics: metadata } = await admin.fetchTopicMetadata({ topics: [...topics] });
    const { resources } = await admin.describeConfigs({
      includeSynonyms: false,
      resources: topics.map((name) => ({ type: 2, name, configNames: ['min.insync.replicas'] })),
    });
    return Object.fromEntries(
      topics.map((name) => {
        const replicas = Math.min(
          ...(metadata.find((t) => t.name === name)?.partitions.map((p) => p.replicas.length) ?? [
            0,
          ]),
        );
        const minIsr = resources
          .find((r) => r.resourceName === name)
          ?.configEntries.find((e) => e.configName === 'min.insync.replicas')?.configValue;
        return [name, [replicas, minIsr ?? 'unknown']];
      }),
    );
  });
}

/**
 * The values a consumer reads from `topic`, by partition, up to `highs` (what is below the high
 * watermark): for a failure's message, to tell a write lost from a high watermark stuck.
 */
async function readableValues(topic: string, highs: readonly number[]): Promise<string[][]> {
  const values: string[][] = highs.map(() => []);
  const consumer = kafka.consumer({ groupId: `${ns.id}.reader` });
  await consumer.connect();
  try {
    await consumer.subscribe({ topics: [topic], fromBeginning: true });
    await consumer.run({
      eachMessage: ({ partition, message }) => {
        values[partition]?.push(message.value?.toString() ?? '');
        return Promise.resolve();
      },
    });
    await eventually(20_000, 'the readable writes read', () =>
      Promise.resolve(highs.every((high, p) => (values[p]?.length ?? 0) >= high)),
    ).catch(() => undefined);
  } finally {
    await consumer.disconnect();
  }
  return values;
}

async function brokerIds(): Promise<number[]> {
  const { brokers } = await withAdmin((admin) => admin.describeCluster());
  return brokers.map((b) => b.nodeId).sort((a, b) => a - b);
}

afterAll(async () => {
  if (!clustered) return;
  await kafkaNode(config, VICTIM).start();
  await dropNamespace(ns, { kafka });
}, 180_000);

describe.skipIf(!clustered)('a three-node stack', () => {
  it('replicates declared, provisioned and internal topics thrice, two in sync', async () => {
    await provisionNamespace(ns, { tools: [], tenants: [] });
    const provisioned = `${ns.id}.${TOPIC_NAMES.proposals}`;
    const topics = [TOPIC_NAMES.proposals, TOPIC_NAMES.audit, provisioned];
    const internal = ['__consumer_offsets', '__transaction_state'];
    const found = await replication([...topics, ...internal]);
    for (const name of [...topics, ...internal]) expect(found[name], name).toEqual([3, '2']);
  });

  it('takes acks=all writes while a node is killed, and the node back once started', async () => {
    const topic = ns.topic('writes');
    await withAdmin((admin) =>
      admin.createTopics({ waitForLeaders: true, topics: [{ topic, numPartitions: 3 }] }),
    );
    const producer = kafka.producer({
      idempotent: true,
      retry: { retries: 20, initialRetryTime: 200, maxRetryTime: 2_000 },
    });
    await producer.connect();
    const send = (label: string) =>
      producer.send({
        topic,
        acks: -1,
        messages: [0, 1, 2].map((p) => ({ partition: p, value: `${label}-${p}` })),
      });
    try {
      await send('before');
      const victim = kafkaNode(config, VICTIM);
      expect(victim.pid()).toBeTypeOf('number');
      expect(await victim.kill()).toBe(true);
      await within(30_000, 'an acks=all write with one node killed', send('during'));
      await eventually(30_000, 'the killed node fenced', async () =>
        (await brokerIds()).every((id) => id !== VICTIM),
      );
      await send('fenced');

      const pid = await victim.start();
      expect(victim.pid()).toBe(pid);
      expect(await brokerIds()).toEqual([1, 2, 3]);
      await eventually(
        60_000,
        'every partition back to three in-sync replicas',
        async () => {
          const { topics } = await withAdmin((admin) =>
            admin.fetchTopicMetadata({ topics: [topic] }),
          );
          return topics[0]?.partitions.every((p) => p.isr.length === 3) ?? false;
        },
        500,
      );
      await send('after');
    } finally {
      await producer.disconnect();
    }
    // A leader elected a moment ago may report a high watermark behind for a while; once none is
    // behind, each partition holds the four writes exactly (one more would be a duplicate).
    const highs = async () =>
      (await withAdmin((admin) => admin.fetchTopicOffsets(topic)))
        .sort((a, b) => a.partition - b.partition)
        .map((o) => Number(o.high));
    let seen: number[] = [];
    await eventually(
      60_000,
      'every acknowledged write readable',
      async () => (seen = await highs()).every((high) => high >= 4),
      500,
    ).catch(async (error: unknown) => {
      const values = await readableValues(topic, seen);
      throw new Error(
        `${String(error)}; high watermarks by partition: ${seen.join(', ')}; readable: ${JSON.stringify(values)}`,
      );
    });
    expect(await highs()).toEqual([4, 4, 4]);
  }, 180_000);
});
