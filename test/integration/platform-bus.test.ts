import {
  BUS_FAULTS,
  createBus,
  createLogger,
  Fault,
  topicsFor,
  withNamespace,
  type Bus,
  type BusBatch,
  type BusConsumer,
  type OutRecord,
} from '@toolgate/platform';
import { createRequire } from 'node:module';
import type { Kafka } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, signal, within } from '../support/deadline.js';
import { dropNamespace, testNamespace } from '../support/namespace.js';
import { recordingLogger } from '../support/recording-logger.js';
import { kafkaClient, stackAddresses, identity } from '../support/stack.js';

const ns = testNamespace('bus');
const logger = recordingLogger();
let bus: Bus;
let kafka: Kafka;

beforeAll(() => {
  kafka = kafkaClient(ns.id);
  bus = createBus({
    security: identity(),
    brokers: stackAddresses().kafkaBrokers,
    clientId: ns.id,
    logger,
  });
});

afterAll(async () => {
  await bus.close();
  await dropNamespace(ns, { kafka });
});

/** The rejection a promise ends with, for asserting on a Fault's fields. */
async function failure(promise: Promise<unknown>): Promise<Fault> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof Fault)) throw new Error(`expected a Fault, got ${String(error)}`);
  return error;
}

/** Creates `name` with the settings of the first catalogue topic and `partitions` partitions. */
async function ensureTopic(name: string, partitions: number): Promise<void> {
  await bus.ensureTopics([{ ...withNamespace(ns.id, topicsFor([]))[0]!, name, partitions }]);
}

/** Consumes `topic` with a bus consumer until `count` messages arrived; returns them and the consumer. */
async function consumeWithBus(topic: string, groupId: string, count: number) {
  const consumer = bus.consumer({ groupId });
  const batches: BusBatch[] = [];
  const done = signal();
  let seen = 0;
  await consumer.connect();
  await consumer.subscribe([topic]);
  await consumer.run((batch) => {
    batches.push(batch);
    seen += batch.messages.length;
    for (const m of batch.messages) batch.resolveOffset(m.offset);
    if (seen >= count) done.resolve();
    return Promise.resolve();
  });
  await within(30_000, `${count} messages on ${topic}`, done.promise);
  return { consumer, messages: batches.flatMap((b) => b.messages) };
}

describe('ensureTopics', () => {
  const specs = withNamespace(ns.id, topicsFor(['search'])).filter((t) =>
    /\.toolgate\.(proposals|audit|quarantine|commands\.search)$/.test(t.name),
  );

  it('creates the missing topics with their partitions and configs, and nothing the second time', async () => {
    expect([...(await bus.ensureTopics(specs))].sort()).toEqual(specs.map((s) => s.name).sort());
    expect(await bus.ensureTopics(specs)).toEqual([]);

    const admin = kafka.admin();
    await admin.connect();
    try {
      const { topics } = await admin.fetchTopicMetadata({ topics: specs.map((s) => s.name) });
      for (const spec of specs) {
        expect(topics.find((t) => t.name === spec.name)?.partitions).toHaveLength(spec.partitions);
      }
      const audit = specs.find((s) => s.name.endsWith('.toolgate.audit'));
      const { resources } = await admin.describeConfigs({
        includeSynonyms: false,
        resources: [{ type: 2, name: audit?.name ?? '', configNames: ['retention.ms'] }],
      });
      expect(resources[0]?.configEntries[0]?.configValue).toBe(String(audit?.retentionMs));
    } finally {
      await admin.disconnect();
    }
  });

  it('gives a proposals topic created with writer timestamps the broker’s, keeping its other settings', async () => {
    const declared = specs.find((s) => s.name.endsWith('.toolgate.proposals'));
    if (declared?.timestampType !== 'LogAppendTime') throw new Error('proposals are not stamped');
    const old = { ...declared, name: `${declared.name}-old`, timestampType: 'CreateTime' as const };
    await bus.ensureTopics([old]);
    const admin = kafka.admin();
    await admin.connect();
    const configOf = async (name: string) => {
      const { resources } = await admin.describeConfigs({
        includeSynonyms: false,
        resources: [{ type: 2, name, configNames: ['message.timestamp.type', 'retention.ms'] }],
      });
      return Object.fromEntries(
        (resources[0]?.configEntries ?? []).map((e) => [e.configName, e.configValue]),
      );
    };
    try {
      expect(await configOf(old.name)).toMatchObject({ 'message.timestamp.type': 'CreateTime' });
      expect(await bus.ensureTopics([{ ...declared, name: old.name }])).toEqual([]);
      expect(await configOf(old.name)).toEqual({
        'message.timestamp.type': 'LogAppendTime',
        'retention.ms': String(declared.retentionMs),
      });
      expect(logger.lines.some((l) => l.fields['topic'] === old.name)).toBe(true);
    } finally {
      await admin.disconnect();
    }
  });
});

describe('transactional producer and consumer', () => {
  const topic = ns.topic('tx');
  const groupId = ns.group('tx-reader');

  beforeAll(async () => {
    await ensureTopic(topic, 1);
  });

  it('delivers committed records with their keys and headers, and offsets only through the transaction', async () => {
    const producer = bus.producer({ transactionalId: ns.transactionalId('tx') });
    await producer.connect();
    const records: OutRecord[] = [
      { topic, key: 'run-1', value: Buffer.from('one'), headers: { 'toolgate-session': 'tok' } },
      { topic, key: null, value: Buffer.from('two') },
    ];
    const aborted = await producer.transaction();
    await aborted.send([{ topic, key: 'run-1', value: Buffer.from('aborted') }]);
    await aborted.abort();
    const tx = await producer.transaction();
    // The broker's answer names each partition written to, once per request.
    expect(await tx.send(records)).toEqual([{ topic, partition: 0 }]);
    await tx.commit();
    expect(tx.isActive()).toBe(false);

    const { consumer, messages } = await consumeWithBus(topic, groupId, 2);
    expect(messages.map((m) => m.value?.toString())).toEqual(['one', 'two']);
    expect(messages[0]).toMatchObject({ headers: { 'toolgate-session': 'tok' } });
    expect(messages[0]?.key?.toString()).toBe('run-1');
    expect(messages[1]?.key).toBeNull();
    // The consumer resolved both records but never commits on its own.
    expect(await bus.committedOffset(groupId, topic, 0)).toBeUndefined();

    const commitOffsets = await producer.transaction();
    const next = String(Number(messages[1]?.offset) + 1);
    await commitOffsets.sendOffsets(groupId, [{ topic, partition: 0, offset: next }]);
    await commitOffsets.commit();
    // The group shows the offset once the coordinator has written the commit marker, which
    // follows EndTxn's answer by a few milliseconds: committed, then visible.
    await eventually(
      10_000,
      'the committed offset',
      async () => (await bus.committedOffset(groupId, topic, 0)) !== undefined,
    );
    expect(await bus.committedOffset(groupId, topic, 0)).toBe(next);
    await consumer.disconnect();
    await producer.disconnect();
  });

  it('hands a repeated header to nobody: the name is absent', async () => {
    const plain = kafka.producer();
    await plain.connect();
    await plain.send({
      topic,
      messages: [{ value: 'dup', headers: { 'toolgate-integrity': ['a', 'b'], kept: 'yes' } }],
    });
    await plain.disconnect();
    const { consumer, messages } = await consumeWithBus(topic, ns.group('dup-reader'), 3);
    const dup = messages.find((m) => m.value?.toString() === 'dup');
    expect(dup?.headers).toEqual({ kept: 'yes' });
    await consumer.disconnect();
  });

  it('fences the older of two producers with the same transactional id', async () => {
    const id = ns.transactionalId('fenced');
    const older = bus.producer({ transactionalId: id });
    await older.connect();
    const newer = bus.producer({ transactionalId: id });
    await newer.connect();
    const fault = await failure(
      older.transaction().then(async (tx) => {
        await tx.send([{ topic, key: null, value: Buffer.from('zombie') }]);
        await tx.commit();
      }),
    );
    expect(fault).toMatchObject({ code: BUS_FAULTS.fenced, retriable: false });
    await older.disconnect().catch(() => undefined);
    await newer.disconnect();
  });

  it('commits back-to-back transactions without a warning (CONCURRENT_TRANSACTIONS is routine)', async () => {
    const log = recordingLogger();
    const quiet = createBus({
      security: identity(),
      brokers: stackAddresses().kafkaBrokers,
      clientId: ns.id,
      logger: log,
    });
    const producer = quiet.producer({ transactionalId: ns.transactionalId('back-to-back') });
    await producer.connect();
    for (let i = 0; i < 20; i += 1) {
      const tx = await producer.transaction();
      await tx.send([{ topic, key: 'b2b', value: Buffer.from(`b2b-${i}`) }]);
      await tx.sendOffsets(ns.group('b2b'), [{ topic, partition: 0, offset: String(i + 1) }]);
      await tx.commit();
    }
    await producer.disconnect();
    await quiet.close();
    expect(log.lines.filter((l) => l.level === 'warn' || l.level === 'error')).toEqual([]);
  });

  it('asks for the coordinators once, not four times in every transaction', async () => {
    // Through kafkajs directly, to count its requests: unpatched, each of these transactions
    // makes four FindCoordinator requests (GroupCoordinator, as kafkajs names the API).
    const producer = kafka.producer({
      transactionalId: ns.transactionalId('coordinators'),
      idempotent: true,
      maxInFlightRequests: 1,
    });
    const apis: string[] = [];
    producer.on(producer.events.REQUEST, ({ payload }) => apis.push(payload.apiName));
    await producer.connect();
    for (let i = 0; i < 5; i += 1) {
      const tx = await producer.transaction();
      await tx.send({ topic, messages: [{ key: 'coordinators', value: `c-${i}` }] });
      await tx.sendOffsets({
        consumerGroupId: ns.group('coordinators'),
        topics: [{ topic, partitions: [{ partition: 0, offset: String(i + 1) }] }],
      });
      await tx.commit();
    }
    await producer.disconnect();
    expect(apis.filter((api) => api === 'EndTxn')).toHaveLength(5);
    // One lookup of the transaction coordinator (InitProducerId) and one of the group's: 2 here,
    // and a lookup retried while a fresh broker loads its coordinators could add one. Unpatched, 23.
    expect(apis.filter((api) => api === 'GroupCoordinator').length).toBeLessThanOrEqual(3);
  });

  it('tells whoever listens when the group is joined, with the assignment', async () => {
    const consumer: BusConsumer = bus.consumer({ groupId: ns.group('join') });
    const joined = signal<Readonly<Record<string, readonly number[]>>>();
    consumer.onGroupJoin((assignment) => joined.resolve(assignment));
    await consumer.connect();
    await consumer.subscribe([topic]);
    await consumer.run(() => Promise.resolve());
    expect(await within(30_000, 'the group join', joined.promise)).toEqual({ [topic]: [0] });
    await consumer.disconnect();
  });
});

describe('partition assignment', () => {
  const topic = ns.topic('assign');

  beforeAll(async () => {
    await ensureTopic(topic, 2);
  });

  it('shares a group with a member of an earlier build, which knows only round robin', async () => {
    const groupId = ns.group('upgrade');
    const earlier = kafka.consumer({ groupId });
    const consumer: BusConsumer = bus.consumer({ groupId });
    let assignment: Readonly<Record<string, readonly number[]>> = {};
    consumer.onGroupJoin((joined) => {
      assignment = joined;
    });
    try {
      await earlier.connect();
      await earlier.subscribe({ topics: [topic] });
      await earlier.run({ eachMessage: () => Promise.resolve() });
      await consumer.connect();
      await consumer.subscribe([topic]);
      await consumer.run(() => Promise.resolve());
      const admin = kafka.admin();
      await admin.connect();
      try {
        await eventually(30_000, 'both members in the group, one partition each', async () => {
          const [group] = (await admin.describeGroups([groupId])).groups;
          return group?.members.length === 2 && (assignment[topic]?.length ?? 0) === 1;
        });
        const [group] = (await admin.describeGroups([groupId])).groups;
        expect(group?.protocol).toBe('RoundRobinAssigner');
      } finally {
        await admin.disconnect();
      }
    } finally {
      await consumer.disconnect();
      await earlier.disconnect();
    }
  });
});

/** A fetch as a consumer asked the broker for it, and the record values of its answer. */
interface SeenFetch {
  readonly topics: readonly string[];
  readonly minBytes: number;
  readonly maxWaitTime: number;
  /** Set when the broker has answered. */
  values?: readonly string[];
}

interface KafkajsFetch {
  readonly minBytes?: number;
  readonly maxWaitTime?: number;
  readonly topics: readonly { readonly topic: string }[];
}

interface KafkajsFetchAnswer {
  readonly responses: readonly {
    readonly partitions: readonly { readonly messages: readonly { value: Buffer | null }[] }[];
  }[];
}

type KafkajsBroker = {
  fetch: (this: unknown, request: KafkajsFetch) => Promise<KafkajsFetchAnswer>;
};

/**
 * Every fetch this process's kafkajs sends, by wrapping the broker class every client shares: what
 * a fetch asks for (minBytes, maxWaitTime) is what decides how long the broker holds it, so the
 * tests assert on that instead of timing records.
 */
function recordFetches(): { readonly seen: SeenFetch[]; restore(): void } {
  const require = createRequire(import.meta.url);
  const broker = (require('kafkajs/src/broker/index.js') as { prototype: KafkajsBroker }).prototype;
  const original = broker.fetch;
  const seen: SeenFetch[] = [];
  broker.fetch = async function (this: unknown, request: KafkajsFetch) {
    const fetch: SeenFetch = {
      topics: request.topics.map((t) => t.topic),
      minBytes: request.minBytes ?? 1,
      maxWaitTime: request.maxWaitTime ?? 5000,
    };
    seen.push(fetch);
    const answer = await original.call(this, request);
    fetch.values = answer.responses.flatMap((r) =>
      r.partitions.flatMap((p) => p.messages.map((m) => m.value?.toString() ?? '')),
    );
    return answer;
  };
  return { seen, restore: () => void (broker.fetch = original) };
}

describe('fetching in batches (minBytes with the idle long poll of our kafkajs patch)', () => {
  const BUSY_MIN_BYTES = 10 * 1024 * 1024;
  /** What an idle fetch asks: the first record, up to the idle wait. */
  const IDLE = { minBytes: 1, maxWaitTime: 300 };
  /** What a busy fetch asks: 10 MiB, which never come, up to the busy wait. */
  const BUSY = { minBytes: BUSY_MIN_BYTES, maxWaitTime: 1_000 };
  let fetches: ReturnType<typeof recordFetches>;

  beforeAll(() => {
    fetches = recordFetches();
  });

  afterAll(() => {
    fetches.restore();
  });

  /** The fetches of `topic` so far, in the order they were sent. */
  const fetchesOf = (topic: string) => fetches.seen.filter((f) => f.topics.includes(topic));

  /**
   * A bus consumer of a new one-partition topic `name`, idle fetches as {@link IDLE} and busy ones
   * as {@link BUSY}. `deliver` sends one record and resolves once the consumer was handed it;
   * `fetchThatBrought` and `fetchesAfter` tell how the consumer fetched it.
   */
  async function watchedConsumer(name: string, options: { readonly busyMinBytes?: number } = {}) {
    const topic = ns.topic(name);
    await ensureTopic(topic, 1);
    const consumer = bus.consumer({
      groupId: ns.group(name),
      minBytes: BUSY.minBytes,
      maxWaitTimeMs: BUSY.maxWaitTime,
      idleMaxWaitTimeMs: IDLE.maxWaitTime,
      ...options,
    });
    const joined = signal();
    consumer.onGroupJoin(() => joined.resolve());
    const values: string[] = [];
    await consumer.connect();
    await consumer.subscribe([topic], { fromBeginning: true });
    await consumer.run((batch) => {
      for (const m of batch.messages) {
        values.push(m.value?.toString() ?? '');
        batch.resolveOffset(m.offset);
      }
      return Promise.resolve();
    });
    await within(30_000, 'the group join', joined.promise);
    const producer = bus.producer({});
    await producer.connect();
    const indexOfFetch = (value: string) =>
      fetchesOf(topic).findIndex((f) => f.values?.includes(value));
    return {
      values,
      fetchesOf: () => fetchesOf(topic),
      deliver: async (value: string) => {
        await producer.send([{ topic, key: null, value: Buffer.from(value) }]);
        const what = `record ${value.slice(0, 10)} handed to the consumer`;
        await eventually(30_000, what, () => Promise.resolve(values.includes(value)));
      },
      fetchThatBrought: (value: string) => fetchesOf(topic)[indexOfFetch(value)],
      fetchesAfter: (value: string) => fetchesOf(topic).slice(indexOfFetch(value) + 1),
      close: async () => {
        await producer.disconnect();
        await consumer.disconnect();
      },
    };
  }

  it('fetches a record that comes after a quiet spell with the idle long poll, not the busy wait', async () => {
    const c = await watchedConsumer('batching');
    // Idle since it joined: the long poll answers with the first record as soon as it is there.
    await c.deliver('first');
    expect(c.fetchThatBrought('first')).toMatchObject(IDLE);
    // The fetch after it waits for minBytes, finds none within the busy wait and comes back
    // empty: idle again.
    await eventually(30_000, 'an empty busy fetch after the record, then an idle one', () => {
      const [busy, idle] = c.fetchesAfter('first');
      return Promise.resolve(
        busy?.minBytes === BUSY.minBytes && busy.values?.length === 0 && idle?.minBytes === 1,
      );
    });
    await c.deliver('second');
    expect(c.fetchThatBrought('second')).toMatchObject(IDLE);
    expect(c.values).toEqual(['first', 'second']);
    await c.close();
  });

  it('waits for minBytes only after a fetch that brought busyMinBytes, so light traffic is not held back', async () => {
    // A record of 100 bytes arrives; a second is sent the moment it does. How the consumer asks
    // for the second depends on whether the first made it busy.
    const fetchOfSecondRecord = async (name: string, busyMinBytes: number) => {
      const c = await watchedConsumer(name, { busyMinBytes });
      await c.deliver('a'.repeat(100));
      await c.deliver('b'.repeat(100));
      const fetch = c.fetchThatBrought('b'.repeat(100));
      await c.close();
      return fetch;
    };
    // Any record makes a fetch busy (kafkajs's behaviour with our patch's default): the second
    // waits for minBytes.
    expect(await fetchOfSecondRecord('busy-any', 1)).toMatchObject(BUSY);
    // 100 bytes are fewer than 1 KiB: the next fetch is answered by the second record.
    expect(await fetchOfSecondRecord('busy-1k', 1024)).toMatchObject(IDLE);
  });

  it('lets an idle consumer long-poll: idleMaxWaitTimeInMs reaches kafkajs through kafka.consumer()', async () => {
    // Through kafkajs directly: with a 25 ms busy wait and no idle long poll, an idle consumer
    // would fetch about 40 times a second; with it, each fetch waits up to 500 ms for a record.
    const topic = ns.topic('idle-poll');
    await ensureTopic(topic, 1);
    const consumer = kafka.consumer({
      groupId: ns.group('idle-poll'),
      minBytes: 32 * 1024,
      maxWaitTimeInMs: 25,
      idleMaxWaitTimeInMs: 500,
    });
    const joined = signal();
    consumer.on(consumer.events.GROUP_JOIN, () => joined.resolve());
    await consumer.connect();
    await consumer.subscribe({ topics: [topic] });
    await consumer.run({ eachBatchAutoResolve: false, eachBatch: () => Promise.resolve() });
    await within(30_000, 'the group join', joined.promise);
    const answered = () => fetchesOf(topic).filter((f) => f.values !== undefined);
    await eventually(30_000, 'three answered fetches of the idle consumer', () =>
      Promise.resolve(answered().length >= 3),
    );
    await consumer.disconnect();
    for (const fetch of answered()) {
      expect(fetch).toMatchObject({ minBytes: 1, maxWaitTime: 500, values: [] });
    }
  });
});

describe('latestOffsets', () => {
  const topic = ns.topic('latest');

  beforeAll(async () => {
    await ensureTopic(topic, 2);
  });

  it('says where every partition ends, so a reader seeking there gets only what came after', async () => {
    expect(await bus.latestOffsets(topic)).toEqual([
      { topic, partition: 0, offset: '0' },
      { topic, partition: 1, offset: '0' },
    ]);
    const producer = bus.producer();
    await producer.connect();
    await producer.send([
      { topic, key: 'a', value: Buffer.from('before') },
      { topic, key: 'a', value: Buffer.from('before, too') },
    ]);
    const ends = await bus.latestOffsets(topic);
    expect(ends.map((p) => Number(p.offset)).reduce((a, b) => a + b, 0)).toBe(2);
    await producer.send([{ topic, key: 'a', value: Buffer.from('after') }]);

    const consumer = bus.consumer({ groupId: ns.group('latest') });
    const after = signal<string>();
    consumer.onGroupJoin(() => {
      for (const p of ends) consumer.seek(p.topic, p.partition, p.offset);
    });
    await consumer.connect();
    await consumer.subscribe([topic], { fromBeginning: true });
    await consumer.run((batch) => {
      for (const m of batch.messages) after.resolve(m.value?.toString() ?? '');
      return Promise.resolve();
    });
    expect(await within(30_000, 'the record written after', after.promise)).toBe('after');
    await consumer.disconnect();
    await producer.disconnect();
  });
});

describe('a Kafka that cannot be reached', () => {
  it('is a retriable kafka_unavailable, and kafkajs says why in our log', async () => {
    const log = recordingLogger();
    const down = createBus({
      security: identity(),
      brokers: ['127.0.0.1:1'],
      clientId: `${ns.id}-down`,
      logger: log,
      connectionTimeoutMs: 200,
      retries: 1,
      initialRetryTimeMs: 50,
    });
    const producer = down.producer({ transactionalId: ns.transactionalId('down') });
    const fault = await failure(producer.connect());
    expect(fault).toMatchObject({ code: BUS_FAULTS.unavailable, retriable: true });
    expect(await failure(down.ensureTopics([]))).toMatchObject({ code: BUS_FAULTS.unavailable });
    expect(
      log.lines.some((l) => l.level === 'error' && typeof l.fields['kafkajs'] === 'string'),
    ).toBe(true);
    await down.close();
  });

  it('writes kafkajs errors to a pino logger too, whose methods need their logger as this', async () => {
    const lines: string[] = [];
    const destination = { write: (line: string) => void lines.push(line) };
    const pino = createLogger({ level: 'warn', stage: 'test', instanceId: ns.id, destination });
    const down = createBus({
      security: identity(),
      brokers: ['127.0.0.1:1'],
      clientId: `${ns.id}-down-pino`,
      logger: pino,
      connectionTimeoutMs: 200,
      retries: 1,
      initialRetryTimeMs: 50,
    });
    expect(await failure(down.ensureTopics([]))).toMatchObject({ code: BUS_FAULTS.unavailable });
    expect(lines.some((line) => line.includes('"level":"error"') && line.includes('kafkajs'))).toBe(
      true,
    );
    await down.close();
  });
});
