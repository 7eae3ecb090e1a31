import kafkajs, { type Kafka, type Producer } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signal, within } from '../support/deadline.js';
import { dropNamespace, testNamespace } from '../support/namespace.js';
import { kafkaClient } from '../support/stack.js';

const { Partitioners } = kafkajs;
const ns = testNamespace('kafka-tx');
const input = ns.topic('input');
const output = ns.topic('output');
const relayGroup = ns.group('relay');
const SENTINEL = 'sentinel';

let kafka: Kafka;
let producer: Producer;

beforeAll(async () => {
  kafka = kafkaClient(ns.id);
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({
    waitForLeaders: true,
    topics: [input, output].map((topic) => ({ topic, numPartitions: 1 })),
  });
  await admin.disconnect();
  producer = kafka.producer({
    transactionalId: ns.transactionalId('relay'),
    idempotent: true,
    maxInFlightRequests: 1,
    createPartitioner: Partitioners.DefaultPartitioner,
  });
  await producer.connect();
});

afterAll(async () => {
  await producer.disconnect();
  await dropNamespace(ns, { kafka });
});

/** Consumes `input` and relays each record in its own transaction that also commits its offset. */
async function relayCommittingOnly(commit: (value: string) => boolean, expected: number) {
  const consumer = kafka.consumer({ groupId: relayGroup });
  await consumer.connect();
  await consumer.subscribe({ topic: input, fromBeginning: true });
  const done = signal();
  const handled: string[] = [];
  await consumer.run({
    autoCommit: false,
    eachMessage: async ({ topic, partition, message }) => {
      const value = message.value?.toString() ?? '';
      const tx = await producer.transaction();
      await tx.send({ topic: output, messages: [{ value: `relayed:${value}` }] });
      const next = (BigInt(message.offset) + 1n).toString();
      await tx.sendOffsets({
        consumerGroupId: relayGroup,
        topics: [{ topic, partitions: [{ partition, offset: next }] }],
      });
      await (commit(value) ? tx.commit() : tx.abort());
      handled.push(value);
      if (handled.length === expected) done.resolve();
    },
  });
  await within(30_000, `the relay to handle ${expected} records`, done.promise);
  await consumer.disconnect();
  return handled;
}

/** Every value on `topic` up to and including the sentinel, as a reader at `isolation` sees it. */
async function readUntilSentinel(isolation: 'committed' | 'uncommitted'): Promise<string[]> {
  const consumer = kafka.consumer({
    groupId: ns.group(`reader-${isolation}`),
    readUncommitted: isolation === 'uncommitted',
  });
  await consumer.connect();
  await consumer.subscribe({ topic: output, fromBeginning: true });
  const seen: string[] = [];
  const done = signal();
  await consumer.run({
    eachMessage: ({ message }) => {
      const value = message.value?.toString() ?? '';
      seen.push(value);
      if (value === SENTINEL) done.resolve();
      return Promise.resolve();
    },
  });
  await within(30_000, `a ${isolation} reader to reach the sentinel`, done.promise);
  await consumer.disconnect();
  return seen;
}

describe('a transactional consume→produce relay on the real broker', () => {
  it('commits one transaction, aborts another, and a read-committed consumer sees only the committed one', async () => {
    const plain = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
    await plain.connect();
    await plain.send({ topic: input, messages: [{ value: 'commit-me' }, { value: 'abort-me' }] });
    await plain.disconnect();

    const handled = await relayCommittingOnly((value) => value === 'commit-me', 2);
    expect(handled).toEqual(['commit-me', 'abort-me']);

    // A committed record after both: once a reader sees it, everything before it is decided.
    const tx = await producer.transaction();
    await tx.send({ topic: output, messages: [{ value: SENTINEL }] });
    await tx.commit();

    expect(await readUntilSentinel('committed')).toEqual(['relayed:commit-me', SENTINEL]);
    // The aborted record was really written: only the isolation level hides it.
    expect(await readUntilSentinel('uncommitted')).toContain('relayed:abort-me');
    // Offsets travel with the transaction: the aborted one did not move the group past offset 1.
    expect(await committedOffsets()).toEqual([{ partition: 0, offset: '1' }]);
  });
});

async function committedOffsets(): Promise<{ partition: number; offset: string }[]> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const [offsets] = await admin.fetchOffsets({ groupId: relayGroup, topics: [input] });
    return (offsets?.partitions ?? []).map(({ partition, offset }) => ({ partition, offset }));
  } finally {
    await admin.disconnect();
  }
}
