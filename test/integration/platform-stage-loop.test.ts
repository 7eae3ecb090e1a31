import {
  BUS_FAULTS,
  CODEC_FAULTS,
  createBus,
  createCodec,
  Fault,
  MAX_REQUEST_RECORD_BYTES,
  startStageLoop,
  type Bus,
  type BusProducer,
  type Codec,
  type Incoming,
  type Outgoing,
  type StageLoop,
  type StageLoopOptions,
} from '@toolgate/platform';
import type { Kafka } from 'kafkajs';
import { spawnTestChild, type TestChild } from '../support/spawn-child.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, signal, within } from '../support/deadline.js';
import { dropNamespace, testNamespace, testTopicSpec } from '../support/namespace.js';
import { recordingLogger } from '../support/recording-logger.js';
import { dropSubjects } from '../support/registry-cleanup.js';
import { kafkaClient, stackAddresses, identity } from '../support/stack.js';
import { identityEnv } from '../support/gate-harness.js';

const ns = testNamespace('stage-loop');
const { kafkaBrokers, schemaRegistryUrl } = stackAddresses();

/** What the pass-through loops copy: a key and a sequence number within it. */
interface Item {
  readonly key: string;
  readonly seq: number;
  readonly fatal?: boolean;
}

const itemSchema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  additionalProperties: false,
  required: ['key', 'seq'],
  properties: {
    key: { type: 'string', minLength: 1 },
    seq: { type: 'integer', minimum: 0 },
    fatal: { type: 'boolean' },
  },
} as const;

/** A plain-JSON record a reader writes to find the end of a topic: `{"marker":<reader>}`. */
const markerOf = (reader: number) => `{"marker":${reader}}`;
const isMarker = (bytes: Buffer | null) => bytes?.toString().startsWith('{"marker":') ?? false;

let kafka: Kafka;
let bus: Bus;
let codec: Codec;
const loops: StageLoop[] = [];

beforeAll(() => {
  kafka = kafkaClient(ns.id);
  bus = createBus({
    security: identity(),
    brokers: kafkaBrokers,
    clientId: ns.id,
    logger: recordingLogger(),
  });
  codec = createCodec({ registryUrl: schemaRegistryUrl, logger: recordingLogger() });
});

afterAll(async () => {
  await Promise.all(loops.map((l) => l.stop()));
  await bus.close();
  await dropNamespace(ns, { kafka });
  await dropSubjects(schemaRegistryUrl, ns.id);
});

/** Creates `name` in the namespace with `partitions`, and registers the item schema for it. */
async function topic(name: string, partitions: number): Promise<string> {
  const full = ns.topic(name);
  await bus.ensureTopics([testTopicSpec(full, partitions)]);
  await codec.register(`${full}-value`, itemSchema);
  return full;
}

/** Writes items as an outside producer would: plain JSON, or the wire format. */
async function produce(
  to: string,
  items: readonly Item[],
  options: { readonly wire?: boolean; readonly partition?: number } = {},
): Promise<void> {
  const producer = kafka.producer();
  await producer.connect();
  const messages = await Promise.all(
    items.map(async (item) => ({
      key: item.key,
      value: options.wire ? await codec.encode(`${to}-value`, item) : JSON.stringify(item),
      ...(options.partition === undefined ? {} : { partition: options.partition }),
    })),
  );
  await producer.send({ topic: to, messages });
  await producer.disconnect();
}

async function produceBytes(to: string, values: readonly (Buffer | string)[]): Promise<void> {
  const producer = kafka.producer();
  await producer.connect();
  await producer.send({ topic: to, messages: values.map((value) => ({ key: 'raw', value })) });
  await producer.disconnect();
}

/** One record as a reader saw it. */
interface Seen {
  readonly partition: number;
  readonly key: string | null;
  readonly value: unknown;
  readonly raw: Buffer | null;
}

let readers = 0;

/**
 * Every record of `from` up to a marker written now into each of its partitions, as a reader at
 * `isolation` sees it. Whatever is committed (or, uncommitted, written) before now is included.
 */
async function readAll(
  from: string,
  partitions: number,
  isolation: 'committed' | 'uncommitted' = 'committed',
): Promise<Seen[]> {
  readers += 1;
  const marker = markerOf(readers);
  const producer = kafka.producer();
  await producer.connect();
  const markers = Array.from({ length: partitions }, (_, partition) => ({
    partition,
    value: marker,
  }));
  await producer.send({ topic: from, messages: markers });
  await producer.disconnect();
  const consumer = kafka.consumer({
    groupId: ns.group(`reader-${readers}`),
    readUncommitted: isolation === 'uncommitted',
  });
  await consumer.connect();
  await consumer.subscribe({ topic: from, fromBeginning: true });
  const seen: Seen[] = [];
  const done = signal();
  let markersSeen = 0;
  await consumer.run({
    eachMessage: async ({ partition, message }) => {
      if (isMarker(message.value)) {
        if (message.value?.toString() === marker) markersSeen += 1;
        if (markersSeen === partitions) done.resolve();
        return;
      }
      const decoded = await codec.decode(message.value, { plainJsonAllowed: true });
      const value = 'value' in decoded ? decoded.value : undefined;
      seen.push({ partition, key: message.key?.toString() ?? null, value, raw: message.value });
    },
  });
  await within(30_000, `a ${isolation} reader to reach the markers of ${from}`, done.promise);
  await consumer.disconnect();
  return seen;
}

/** Items as `count` sequence numbers for each of `keys` keys, interleaved. */
function items(keys: number, count: number, prefix = 'k'): Item[] {
  return Array.from({ length: keys * count }, (_, i) => ({
    key: `${prefix}${i % keys}`,
    seq: Math.floor(i / keys),
  }));
}

/** The sequence numbers each key arrived with, in arrival order. */
function seqsByKey(seen: readonly Seen[]): Map<string, number[]> {
  const byKey = new Map<string, number[]>();
  for (const { value } of seen) {
    const item = value as Item;
    byKey.set(item.key, [...(byKey.get(item.key) ?? []), item.seq]);
  }
  return byKey;
}

/** Starts a loop with test defaults; stopped after all tests. */
async function loop(
  options: Partial<StageLoopOptions> & Pick<StageLoopOptions, 'topics' | 'handle'>,
): Promise<StageLoop> {
  const started = await startStageLoop({
    stage: 'test',
    groupId: ns.group('stage'),
    instanceId: 'i1',
    bus,
    codec,
    logger: recordingLogger(),
    retry: { initialMs: 50, maxMs: 400 },
    ...options,
  });
  loops.push(started);
  await eventually(30_000, 'the loop to join its group with partitions', () =>
    Promise.resolve(started.ready()),
  );
  return started;
}

/** Resolves when the group has committed past every record of `from` written so far. */
async function consumedAll(groupId: string, from: string): Promise<void> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const ends = await admin.fetchTopicOffsets(from);
    await eventually(30_000, `${groupId} to commit to the end of ${from}`, async () => {
      const checks = await Promise.all(
        ends.map(
          async ({ partition, high }) =>
            (await bus.committedOffset(groupId, from, partition)) === high,
        ),
      );
      return checks.every(Boolean);
    });
  } finally {
    await admin.disconnect();
  }
}

const copyTo =
  (to: string) =>
  (msg: Incoming): Promise<readonly Outgoing[]> =>
    Promise.resolve([{ topic: to, key: msg.key, value: msg.value }]);

describe('startStageLoop: a pass-through stage', () => {
  it('copies 200 messages exactly once, in order per key, and commits the group past them', async () => {
    const input = await topic('pt-in', 3);
    const output = await topic('pt-out', 3);
    const groupId = ns.group('pass-through');
    const batches: number[] = [];
    const transactions: { chunks: number; partitions: number }[] = [];
    const pass = await loop({
      groupId,
      topics: [{ name: input, plainJsonAllowed: true }],
      handle: copyTo(output),
      maxBatchMessages: 50,
      metrics: {
        batch: (_seconds, size) => batches.push(size),
        transaction: (_seconds, chunks, partitions) => transactions.push({ chunks, partitions }),
      },
    });
    await produce(input, items(10, 20));
    await consumedAll(groupId, input);
    await pass.stop();
    expect(pass.ready()).toBe(false);

    const seen = await readAll(output, 3);
    expect(seen).toHaveLength(200);
    for (const [key, seqs] of seqsByKey(seen)) {
      expect(seqs, key).toEqual(Array.from({ length: 20 }, (_, i) => i));
    }
    for (const s of seen) expect(s.key).toBe((s.value as Item).key);
    expect(Math.max(...batches)).toBeLessThanOrEqual(50);
    // A key's copy goes to the partition of the same number (three each, the same partitioner),
    // so a transaction writes to one output partition per input partition it carries chunks of:
    // each counted once, however many records went there.
    expect(transactions.length).toBeGreaterThan(0);
    for (const t of transactions) {
      expect(t.partitions).toBeGreaterThanOrEqual(1);
      expect(t.partitions).toBeLessThanOrEqual(Math.min(t.chunks, 3));
    }

    // A new member of the same group starts after everything the first one handled.
    const after: Incoming[] = [];
    const sentinel = signal();
    await loop({
      groupId,
      instanceId: 'i2',
      topics: [{ name: input, plainJsonAllowed: true }],
      handle: (msg) => {
        after.push(msg);
        sentinel.resolve();
        return Promise.resolve([]);
      },
    });
    await produce(input, [{ key: 'sentinel', seq: 0 }]);
    await within(30_000, 'the new member to receive the sentinel', sentinel.promise);
    expect(after.map((m) => m.value)).toEqual([{ key: 'sentinel', seq: 0 }]);
  });
});

describe('startStageLoop: a handler that fails fatally', () => {
  it('produces the onFatal outputs in place of the failed message and forwards everything else', async () => {
    const input = await topic('fatal-in', 1);
    const output = await topic('fatal-out', 1);
    const logger = recordingLogger();
    const faults: string[] = [];
    await loop({
      groupId: ns.group('fatal'),
      topics: [{ name: input, plainJsonAllowed: true }],
      logger,
      metrics: { fault: (code) => faults.push(code) },
      handle: (msg) => {
        const item = msg.value as Item;
        if (item.seq === 7) throw new TypeError('a bug in the handler');
        // Breaks the output schema: a gate bug the codec catches, handled the same way.
        if (item.seq === 9)
          return Promise.resolve([{ topic: output, key: msg.key, value: { ...item, extra: 1 } }]);
        return copyTo(output)(msg);
      },
      onFatal: (msg) => [
        { topic: output, key: msg.key, value: { ...(msg.value as Item), fatal: true } },
      ],
    });
    await produce(input, items(1, 12));
    await consumedAll(ns.group('fatal'), input);

    const seen = (await readAll(output, 1)).map((s) => s.value as Item);
    expect(seen.map((i) => i.seq)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
    expect(seen.filter((i) => i.fatal).map((i) => i.seq)).toEqual([7, 9]);
    expect(faults).toEqual(['internal_error', CODEC_FAULTS.invalidMessage]);
    const errors = logger.lines.filter((l) => l.level === 'error');
    expect(errors.map((l) => l.fields['offset'])).toEqual(['7', '9']);
    expect(JSON.stringify(errors)).not.toContain('"seq"');
  });
});

describe('startStageLoop: a retriable fault', () => {
  it('retries the message (never skips it), holds back its key and partition only, and outputs once', async () => {
    const input = await topic('retry-in', 3);
    const output = await topic('retry-out', 3);
    const logger = recordingLogger();
    const handled: { key: string; seq: number; partition: number; offset: bigint; ok: boolean }[] =
      [];
    let failures = 0;
    let stuck: { partition: number; offset: bigint } | undefined;
    const otherPartitionHandled = signal();
    let released = false;
    await loop({
      groupId: ns.group('retry'),
      topics: [{ name: input, plainJsonAllowed: true }],
      logger,
      handle: (msg) => {
        const item = msg.value as Item;
        const entry = { ...item, partition: msg.partition, offset: BigInt(msg.offset) };
        const isTarget = item.key === 'k0' && item.seq === 2;
        if (
          !isTarget &&
          stuck !== undefined &&
          msg.partition !== stuck.partition &&
          item.key.startsWith('late')
        ) {
          released = true;
          otherPartitionHandled.resolve();
        }
        // Fails at least three times, and until a message of another partition got through.
        if (isTarget && (failures < 3 || !released)) {
          failures += 1;
          if (stuck === undefined) {
            stuck = { partition: msg.partition, offset: BigInt(msg.offset) };
            const others = [0, 1, 2].filter((p) => p !== msg.partition);
            void Promise.all(
              others.map((p) => produce(input, [{ key: `late${p}`, seq: 0 }], { partition: p })),
            );
          }
          handled.push({ ...entry, ok: false });
          return Promise.reject(new Fault('redis_unavailable', 'Redis is down'));
        }
        handled.push({ ...entry, ok: true });
        return copyTo(output)(msg);
      },
    });
    await produce(input, items(6, 5));
    await within(
      30_000,
      'a message of another partition while k0/2 is held back',
      otherPartitionHandled.promise,
    );
    await consumedAll(ns.group('retry'), input);

    const target = handled.findIndex((h) => h.key === 'k0' && h.seq === 2 && h.ok);
    expect(failures).toBeGreaterThanOrEqual(3);
    expect(target).toBeGreaterThan(-1);
    // Nothing of k0 after the held-back message is handled before it; other keys of its partition
    // may be (keys are handled side by side), but their outputs wait for it and appear once.
    const before = handled
      .slice(0, target)
      .filter((h) => h.partition === stuck?.partition && h.key === 'k0');
    expect(before.length).toBeGreaterThan(0);
    expect(before.every((h) => h.offset <= (stuck?.offset ?? -1n))).toBe(true);
    expect(handled.slice(0, target).some((h) => h.key.startsWith('late') && h.ok)).toBe(true);

    const seen = await readAll(output, 3);
    const byKey = seqsByKey(seen);
    for (let k = 0; k < 6; k += 1) expect(byKey.get(`k${k}`), `k${k}`).toEqual([0, 1, 2, 3, 4]);
    expect(seen).toHaveLength(30 + 2);
    const warnings = logger.lines.filter(
      (l) => l.level === 'warn' && l.fields['code'] === 'redis_unavailable',
    );
    expect(warnings).toHaveLength(failures);
    expect(warnings.map((w) => w.fields['attempt'])).toEqual(warnings.map((_, i) => i + 1));
  });
});

describe('startStageLoop: the lag of a partition held back by a fault', () => {
  it('is reported while the first message keeps failing, counting what arrives behind it', async () => {
    const input = await topic('lag-in', 1);
    const output = await topic('lag-out', 1);
    const lags: number[] = [];
    let failing = true;
    let behind: Promise<void> | undefined;
    await loop({
      groupId: ns.group('lag'),
      topics: [{ name: input, plainJsonAllowed: true }],
      metrics: { lag: (_topic, _partition, lag) => lags.push(lag) },
      handle: (msg) => {
        if (failing && (msg.value as Item).key === 'first') {
          // Four more records arrive while the first is held back; nothing is ever committed.
          behind ??= produce(
            input,
            [1, 2, 3, 4].map((seq) => ({ key: 'behind', seq })),
          );
          return Promise.reject(new Fault('redis_unavailable', 'Redis is down'));
        }
        return copyTo(output)(msg);
      },
    });
    await produce(input, [{ key: 'first', seq: 0 }]);
    await eventually(30_000, 'a lag of all five records while the first fails', () =>
      Promise.resolve(lags.includes(5)),
    );
    expect(
      lags.every((lag) => lag >= 1),
      `lags reported: ${lags.join(', ')}`,
    ).toBe(true);

    failing = false;
    await consumedAll(ns.group('lag'), input);
    await eventually(10_000, 'a lag of 0 once everything is committed', () =>
      Promise.resolve(lags.at(-1) === 0),
    );
  });
});

describe('startStageLoop: the lag after a rebalance', () => {
  it('drops the lag of a partition that went to another member of the group', async () => {
    const input = await topic('lag-rebalance-in', 2);
    const output = await topic('lag-rebalance-out', 2);
    const groupId = ns.group('lag-rebalance');
    const topics = [{ name: input, plainJsonAllowed: true }];
    // The first member's toolgate_consumer_lag series, by partition.
    const series = new Map<number, number>();
    await loop({
      groupId,
      topics,
      handle: copyTo(output),
      metrics: {
        lag: (_topic, partition, lag) => series.set(partition, lag),
        forgetLag: (_topic, partition) => series.delete(partition),
      },
    });
    await produce(input, [{ key: 'a', seq: 0 }], { partition: 0 });
    await produce(input, [{ key: 'b', seq: 0 }], { partition: 1 });
    await eventually(30_000, 'the first member to report the lag of both partitions', () =>
      Promise.resolve(series.size === 2),
    );

    await loop({ groupId, instanceId: 'i2', topics, handle: copyTo(output) });
    await eventually(30_000, "the first member to keep only its own partition's lag", () =>
      Promise.resolve(series.size === 1),
    );
  });
});

/** What an injected commit failure does: fail before committing, or commit and lose the answer. */
type CommitFault = 'fail' | 'lose-answer' | 'ok';

/** `bus`, except that its producers' commits follow `plan` (then succeed). */
function flakyCommits(plan: CommitFault[]): Bus {
  const injected = () => new Fault(BUS_FAULTS.unavailable, 'injected: broker gone');
  const flaky = (producer: BusProducer): BusProducer => ({
    ...producer,
    transaction: async () => {
      const tx = await producer.transaction();
      return {
        ...tx,
        commit: async () => {
          const next = plan.shift() ?? 'ok';
          if (next === 'fail') await tx.abort();
          else await tx.commit();
          if (next !== 'ok') throw injected();
        },
      };
    },
  });
  return { ...bus, producer: (options) => flaky(bus.producer(options)) };
}

describe('startStageLoop: a transaction that fails', () => {
  it('is redone from the committed offset: nothing lost, and nothing twice when only the answer was lost', async () => {
    const input = await topic('txfail-in', 1);
    const output = await topic('txfail-out', 1);
    const logger = recordingLogger();
    const groupId = ns.group('txfail');
    await loop({
      groupId,
      topics: [{ name: input, plainJsonAllowed: true }],
      bus: flakyCommits(['ok', 'fail', 'lose-answer']),
      logger,
      maxBatchMessages: 10,
      handle: copyTo(output),
    });
    await produce(input, items(1, 30));
    await consumedAll(groupId, input);

    const seen = await readAll(output, 1);
    expect(seqsByKey(seen).get('k0')).toEqual(Array.from({ length: 30 }, (_, i) => i));
    const failures = logger.lines.filter((l) => l.message.startsWith('transaction failed'));
    expect(failures).toHaveLength(2);
    // The aborted attempt's outputs exist only for readers of uncommitted data.
    expect((await readAll(output, 1, 'uncommitted')).length).toBe(40);
  });
});

describe('startStageLoop: decoding', () => {
  it('hands undecodable bytes over with the raw bytes kept, and plain JSON only where allowed', async () => {
    const external = await topic('ext-in', 1);
    const internal = await topic('int-in', 1);
    const quarantine = await topic('quarantine', 1);
    const received: Incoming[] = [];
    const all = signal();
    await loop({
      groupId: ns.group('decode'),
      topics: [
        { name: external, plainJsonAllowed: true },
        { name: internal, plainJsonAllowed: false },
      ],
      handle: (msg) => {
        received.push(msg);
        if (received.length === 6) all.resolve();
        if (msg.decodeError === undefined || msg.raw === null) return Promise.resolve([]);
        return Promise.resolve([{ topic: quarantine, key: null, raw: msg.raw }]);
      },
    });
    const garbage = Buffer.from([0xde, 0xad, 0xbe, 0xef]);
    const duplicateText = '{"key":"a","key":"b","seq":1}';
    await produceBytes(external, [garbage, duplicateText, '{"key":"plain","seq":1}']);
    await produce(internal, [{ key: 'plain-inside', seq: 1 }]);
    await produce(internal, [{ key: 'wire', seq: 2 }], { wire: true });
    await produce(external, [{ key: 'wire-outside', seq: 3 }], { wire: true });
    await within(30_000, 'all six messages', all.promise);

    const byTopic = (t: string) => received.filter((m) => m.topic === t);
    const [bad, duplicate, plain, wireOutside] = byTopic(external);
    expect(bad).toMatchObject({ value: undefined, raw: garbage, key: 'raw' });
    expect(bad?.decodeError).toMatch(/^undecodable: neither the wire format/);
    expect(duplicate?.decodeError).toMatch(/^undecodable: duplicate_key/);
    expect(plain).toMatchObject({ value: { key: 'plain', seq: 1 } });
    expect(plain?.decodeError).toBeUndefined();
    expect(wireOutside).toMatchObject({ value: { key: 'wire-outside', seq: 3 } });
    const [plainInside, wire] = byTopic(internal);
    expect(plainInside?.decodeError).toBe('undecodable: plain JSON is not accepted on this topic');
    expect(wire).toMatchObject({ value: { key: 'wire', seq: 2 }, key: 'wire' });
    expect(wire?.receivedAt).toBeInstanceOf(Date);

    // Handled is not yet committed: wait for the group to move past both inputs.
    await consumedAll(ns.group('decode'), external);
    await consumedAll(ns.group('decode'), internal);
    const quarantined = (await readAll(quarantine, 1)).map((q) => q.raw?.toString('hex'));
    const expected = [garbage, duplicateText, JSON.stringify({ key: 'plain-inside', seq: 1 })];
    expect(quarantined.sort()).toEqual(expected.map((e) => Buffer.from(e).toString('hex')).sort());
  });
});

describe('startStageLoop: outputs larger than one produce request', () => {
  it('sends outputs too large for one batch together in one transaction, and refuses a record no batch can carry', async () => {
    const input = await topic('large-in', 1);
    const output = await topic('large-out', 1);
    const groupId = ns.group('large');
    const faults: string[] = [];
    // 400 KB each: three of them, to one partition, are more than the broker takes in a batch.
    const bytesOf = (seq: number) => (seq === 3 ? MAX_REQUEST_RECORD_BYTES + 1 : 400_000);
    const fill = (seq: number) => Buffer.alloc(bytesOf(seq), 97 + seq);
    const batches: number[] = [];
    await loop({
      groupId,
      topics: [{ name: input, plainJsonAllowed: true }],
      metrics: {
        fault: (code) => faults.push(code),
        batch: (_seconds, size) => batches.push(size),
      },
      handle: (msg) =>
        Promise.resolve([{ topic: output, key: msg.key, raw: fill((msg.value as Item).seq) }]),
      onFatal: (msg) => [
        { topic: output, key: msg.key, value: { ...(msg.value as Item), fatal: true } },
      ],
    });
    await produce(input, items(1, 6));
    await consumedAll(groupId, input);

    const seen = await readAll(output, 1);
    expect(seen).toHaveLength(6);
    expect(seen[3]?.value).toEqual({ key: 'k0', seq: 3, fatal: true });
    const large = seen.filter((_, i) => i !== 3);
    expect(large.map((s) => s.raw?.length)).toEqual([0, 1, 2, 4, 5].map(bytesOf));
    expect(large.map((s) => s.raw?.[0])).toEqual([0, 1, 2, 4, 5].map((seq) => 97 + seq));
    expect(faults).toEqual([BUS_FAULTS.recordTooLarge]);
    // At least one transaction carried more than a batch may hold, so the split was exercised.
    expect(Math.max(...batches)).toBeGreaterThanOrEqual(3);
  });
});

describe('startStageLoop: timers and lifecycle', () => {
  it('produces timer-driven outputs in its own transaction, and refuses an invalid one whole', async () => {
    const output = await topic('timer-out', 1);
    const input = await topic('timer-in', 1);
    const timer = await loop({
      groupId: ns.group('timer'),
      topics: [{ name: input, plainJsonAllowed: true }],
      handle: () => Promise.resolve([]),
    });
    await timer.produceTransactional([
      { topic: output, key: 'swept', value: { key: 'swept', seq: 1 } },
      { topic: output, key: 'swept', value: { key: 'swept', seq: 2 } },
    ]);
    await expect(
      timer.produceTransactional([
        { topic: output, key: 'swept', value: { key: 'swept', seq: 3 } },
        { topic: output, key: 'swept', value: { key: 'swept', seq: -1 } },
      ]),
    ).rejects.toMatchObject({ code: CODEC_FAULTS.invalidMessage, retriable: false });
    expect((await readAll(output, 1)).map((s) => (s.value as Item).seq)).toEqual([1, 2]);
  });

  it('stops once however often it is asked, and is not ready afterwards', async () => {
    const input = await topic('stop-in', 1);
    const stopping = await loop({
      groupId: ns.group('stop'),
      topics: [{ name: input, plainJsonAllowed: true }],
      handle: () => Promise.resolve([]),
    });
    expect(stopping.ready()).toBe(true);
    await Promise.all([stopping.stop(), stopping.stop()]);
    await stopping.stop();
    expect(stopping.ready()).toBe(false);
  });
});

describe('startStageLoop: a crash between send and commit', () => {
  /** Runs the pass-through child; resolves with how it ended. */
  function child(env: Record<string, string>): TestChild {
    return spawnTestChild('test/support/stage-loop-child.ts', env);
  }

  it('is recovered by a restart: each output exactly once for read-committed readers', async () => {
    const input = await topic('crash-in', 1);
    const output = await topic('crash-out', 1);
    const groupId = ns.group('crash');
    const env = {
      TOOLGATE_KAFKA_BROKERS: kafkaBrokers.join(','),
      ...identityEnv('admin'),
      TOOLGATE_SCHEMA_REGISTRY_URL: schemaRegistryUrl,
      CHILD_INPUT: input,
      CHILD_OUTPUT: output,
      CHILD_GROUP: groupId,
      CHILD_INSTANCE: 'crashing-1',
      CHILD_MAX_BATCH: '10',
      CHILD_SCHEMA: JSON.stringify(itemSchema),
    };
    await produce(input, items(1, 50));

    const first = child({ ...env, TOOLGATE_TEST_KILL_AT_COMMIT: '2' });
    expect(await within(60_000, 'the first child to kill itself', first.exited)).toBe('SIGKILL');
    expect(await bus.committedOffset(groupId, input, 0)).toBe('10');
    // The killed transaction's outputs were written; only its missing commit hides them.
    expect((await readAll(output, 1, 'uncommitted')).length).toBe(20);

    const second = child(env);
    await within(60_000, 'the restarted child to join', second.ready);
    await consumedAll(groupId, input);
    second.proc.kill('SIGTERM');
    expect(await within(30_000, 'the restarted child to stop', second.exited)).toBe(0);

    const seen = await readAll(output, 1);
    expect(seqsByKey(seen).get('k0')).toEqual(Array.from({ length: 50 }, (_, i) => i));
    expect((await readAll(output, 1, 'uncommitted')).length).toBe(60);
  });
});
