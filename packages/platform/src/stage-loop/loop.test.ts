/**
 * The stage loop's decisions, driven through an in-memory bus: which offsets a transaction
 * commits, when nothing is committed, what is paused and rewound, and the states it goes through.
 * The same loop runs on the real broker in test/integration/platform-stage-loop.test.ts; this file
 * reaches the paths a real broker cannot be made to take on cue (a heartbeat that reports a
 * rebalance mid-chunk). Nothing here waits for time to pass: each test waits for the event it
 * needs.
 */
import { ConfigError } from '@toolgate/shared';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SILENT_LOGGER, type AdapterLogger } from '../adapter-logger.js';
import type {
  Assignment,
  Bus,
  BusBatch,
  BusConsumer,
  BusConsumerOptions,
  BusProducer,
  BusTransaction,
  OutRecord,
  PartitionOffset,
} from '../kafka/index.js';
import type { Codec } from '../codec.js';
import { Fault } from '../fault.js';
import { BUS_FAULTS } from '../kafka/index.js';
import type { StageLoopState } from './loop-state.js';
import { startStageLoop } from './loop.js';
import type { StageLoopOptions } from './options.js';
import type { Incoming } from './types.js';

const TOPIC = 'in';

interface Committed {
  readonly records: readonly OutRecord[];
  readonly offsets: readonly PartitionOffset[];
}

/** A bus that keeps everything in memory and lets the test hand batches to the loop. */
function memoryBus() {
  const committed: Committed[] = [];
  const aborted: Committed[] = [];
  const events: string[] = [];
  const consumerOptions: BusConsumerOptions[] = [];
  let eachBatch: ((batch: BusBatch) => Promise<void>) | undefined;
  let joined: ((assignment: Assignment) => void) | undefined;
  let resumed: () => void = () => undefined;
  let crashed: ((error: Fault, restarting: boolean) => void) | undefined;
  /**
   * How many of the next commits fail (as a broker that times out the EndTxn would), and whether
   * the next one finds the producer fenced (another producer took over its transactional id).
   */
  const failing = { commits: 0, fenced: false };
  let onCommit: () => void = () => undefined;

  const transaction = (): BusTransaction => {
    const records: OutRecord[] = [];
    const offsets: PartitionOffset[] = [];
    let active = true;
    return {
      // The partition the broker would name: the key's trailing number here.
      send: (r) => {
        records.push(...r);
        const partitionOf = (key: string | null) => Number(/\d+$/.exec(key ?? '')?.[0] ?? 0);
        return Promise.resolve(r.map((x) => ({ topic: x.topic, partition: partitionOf(x.key) })));
      },
      sendOffsets: (_group, o) => Promise.resolve(void offsets.push(...o)),
      commit: () => {
        if (failing.fenced) {
          failing.fenced = false;
          return Promise.reject(new Fault(BUS_FAULTS.fenced, 'fenced while trying to commit'));
        }
        if (failing.commits > 0) {
          failing.commits -= 1;
          return Promise.reject(new Fault('kafka_unavailable', 'EndTxn timed out'));
        }
        active = false;
        committed.push({ records, offsets });
        onCommit();
        return Promise.resolve();
      },
      abort: () => Promise.resolve(void ((active = false), aborted.push({ records, offsets }))),
      isActive: () => active,
    };
  };
  const producer: BusProducer = {
    connect: () => Promise.resolve(),
    send: () => Promise.resolve(),
    transaction: () => Promise.resolve(transaction()),
    disconnect: () => Promise.resolve(),
  };
  const consumer: BusConsumer = {
    connect: () => Promise.resolve(),
    subscribe: () => Promise.resolve(),
    run: (fn) => {
      eachBatch = fn;
      joined?.({ [TOPIC]: [0] });
      return Promise.resolve();
    },
    pause: (t, p) => void events.push(`pause ${t}/${p}`),
    resume: (t, p) => {
      events.push(`resume ${t}/${p}`);
      resumed();
    },
    seek: (t, p, o) => void events.push(`seek ${t}/${p} ${o}`),
    onGroupJoin: (listener) => {
      joined = listener;
      return () => undefined;
    },
    onCrash: (listener) => {
      crashed = listener;
      return () => undefined;
    },
    disconnect: () => Promise.resolve(),
  };
  const bus: Bus = {
    ensureTopics: () => Promise.resolve([]),
    committedOffset: () => Promise.resolve(undefined),
    latestOffsets: () => Promise.resolve([]),
    offsetsAt: () => Promise.resolve([]),
    groupTopics: () => Promise.resolve([]),
    unseenTopics: () => Promise.resolve([]),
    createAcls: () => Promise.resolve(),
    describeAcls: () => Promise.resolve([]),
    deleteAcls: () => Promise.resolve(),
    producer: () => producer,
    consumer: (options) => {
      consumerOptions.push(options);
      return consumer;
    },
    close: () => Promise.resolve(),
  };
  const deliver = (batch: BusBatch): Promise<void> => {
    if (eachBatch === undefined) throw new Error('the loop is not consuming');
    return eachBatch(batch);
  };
  const nextResume = () => new Promise<void>((resolve) => (resumed = resolve));
  const nextCommit = () => new Promise<void>((resolve) => (onCommit = resolve));
  /** The consumer crashes, as kafkajs reports it; `restarting` says whether kafkajs restarts it. */
  const crash = (error: Fault, restarting: boolean) => crashed?.(error, restarting);
  /** The group rebalanced and gave this member `assignment`. */
  const rejoin = (assignment: Assignment) => joined?.(assignment);
  return {
    bus,
    deliver,
    committed,
    aborted,
    events,
    nextResume,
    nextCommit,
    failing,
    consumerOptions,
    crash,
    rejoin,
  };
}

/** JSON in, JSON out: the registry is not what these tests are about. */
const jsonCodec: Codec = {
  register: () => Promise.resolve(1),
  adopt: () => Promise.resolve(1),
  encode: (_subject, value) => Promise.resolve(Buffer.from(JSON.stringify(value))),
  decode: (bytes) =>
    Promise.resolve(
      bytes === null
        ? { error: 'undecodable: tombstone' }
        : { value: JSON.parse(bytes.toString()) as unknown, schemaId: null },
    ),
};

/** A batch of `count` messages `{n}` at offsets 0…count−1; `lastOffset` may reach past them. */
function batchOf(
  count: number,
  options: {
    readonly lastOffset?: number;
    /** The partition's end as the fetch reported it; default past `lastOffset`. */
    readonly highWatermark?: string;
    readonly partition?: number;
    /** The record key of message `n`; default `run-1` for all. */
    readonly key?: (n: number) => string;
    readonly heartbeat?: (n: number) => Promise<void>;
  } = {},
) {
  const resolved: string[] = [];
  let beats = 0;
  const batch: BusBatch = {
    topic: TOPIC,
    partition: options.partition ?? 0,
    highWatermark: options.highWatermark ?? String((options.lastOffset ?? count - 1) + 1),
    messages: Array.from({ length: count }, (_, n) => ({
      offset: String(n),
      key: Buffer.from(options.key?.(n) ?? 'run-1'),
      value: Buffer.from(JSON.stringify({ n })),
      headers: {},
      timestamp: '0',
    })),
    lastOffset: () => String(options.lastOffset ?? count - 1),
    resolveOffset: (offset) => void resolved.push(offset),
    heartbeat: () => (options.heartbeat ?? (() => Promise.resolve()))(beats++),
    isRunning: () => true,
    isStale: () => false,
  };
  return { batch, resolved };
}

const copy = (msg: Incoming) => Promise.resolve([{ topic: 'out', key: msg.key, value: msg.value }]);

/** Copies every message, except that message `n` fails once with a retriable fault (Redis down). */
function failingOnceAt(n: number) {
  let tries = 0;
  return (msg: Incoming) => {
    if ((msg.value as { n: number }).n === n && tries++ === 0) {
      return Promise.reject(new Fault('redis_unavailable', 'down'));
    }
    return copy(msg);
  };
}

/**
 * Copies every message, but handles message `first` only after message `then`; `seen` is the
 * order they were handled in.
 */
function waitingFor(first: number, then: number) {
  const seen: number[] = [];
  let release: () => void = () => undefined;
  const released = new Promise<void>((resolve) => (release = resolve));
  const handle = async (msg: Incoming) => {
    const { n } = msg.value as { n: number };
    if (n === first) await released;
    seen.push(n);
    if (n === then) release();
    return copy(msg);
  };
  return { handle, seen };
}

/** A promise and the function that resolves it. */
function deferred() {
  let resolve: () => void = () => undefined;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

/** One turn of the event loop: every callback already queued (promise reactions included) runs. */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A logger that keeps each line's level, message and fields. */
function recordingLogger() {
  const lines: { level: string; msg: string; fields: Record<string, unknown> }[] = [];
  const at =
    (level: string) =>
    (fields: object, msg: string): void =>
      void lines.push({ level, msg, fields: fields as Record<string, unknown> });
  const logger: AdapterLogger = {
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
  };
  return { logger, lines };
}

async function startWith(
  memory: ReturnType<typeof memoryBus>,
  options: Partial<StageLoopOptions> = {},
) {
  return startStageLoop({
    stage: 'test',
    groupId: 'g',
    instanceId: 'i',
    topics: [{ name: TOPIC, plainJsonAllowed: true }],
    bus: memory.bus,
    codec: jsonCodec,
    logger: SILENT_LOGGER,
    handle: copy,
    retry: { initialMs: 2, maxMs: 4 },
    ...options,
  });
}

const offsetsOf = (committed: readonly Committed[]) =>
  committed.map((c) => c.offsets.map((o) => o.offset).join(','));
const positionsOf = (c: Committed | undefined) =>
  (c?.offsets ?? []).map((o) => `${o.partition}@${o.offset}`).sort();
const valuesOf = (c: Committed | undefined) =>
  (c?.records ?? []).map((r) => (JSON.parse(r.value.toString()) as { n: number }).n);

describe('startStageLoop (in memory)', () => {
  it('fetches in batches by default: 32 KiB or 25 ms when busy (2 KiB last time), else a 500 ms long poll', async () => {
    const memory = memoryBus();
    const loop = await startWith(memory);
    expect(memory.consumerOptions).toHaveLength(1);
    expect(memory.consumerOptions[0]).toMatchObject({
      groupId: 'g',
      readCommitted: true,
      minBytes: 32 * 1024,
      maxWaitTimeMs: 25,
      idleMaxWaitTimeMs: 500,
      busyMinBytes: 2048,
    });
    await loop.stop();
  });

  it('passes the fetch settings it is given to its consumer', async () => {
    const eager = memoryBus();
    const first = await startWith(eager, {
      fetchMinBytes: 1,
      maxWaitTimeMs: 500,
      idleMaxWaitTimeMs: 1000,
      fetchBusyMinBytes: 1,
    });
    expect(eager.consumerOptions[0]).toMatchObject({
      minBytes: 1,
      maxWaitTimeMs: 500,
      idleMaxWaitTimeMs: 1000,
      busyMinBytes: 1,
    });
    await first.stop();
  });

  it('refuses options out of range, naming each, before it creates a consumer', async () => {
    const odd = memoryBus();
    const error: unknown = await startWith(odd, {
      fetchMinBytes: 0,
      maxWaitTimeMs: -5,
      fetchBusyMinBytes: 0,
      keysConcurrently: 0,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems).toEqual([
      'keysConcurrently must be an integer, at least 1 (got 0)',
      'fetchMinBytes must be an integer, 1 to 1048576 (got 0)',
      'maxWaitTimeMs must be an integer, 1 to 10000 (got -5)',
      'fetchBusyMinBytes must be an integer, 1 to 1048576 (got 0)',
    ]);
    expect(odd.consumerOptions).toEqual([]);
  });

  it('commits each chunk with the offset after its last message, and the last chunk past the fetch', async () => {
    const memory = memoryBus();
    const loop = await startWith(memory, { maxBatchMessages: 3 });
    expect(loop.ready()).toBe(true);
    // Offset 7 is a control record (a commit marker): filtered out, but the fetch covered it.
    const { batch, resolved } = batchOf(7, { lastOffset: 7 });
    await memory.deliver(batch);
    expect(offsetsOf(memory.committed)).toEqual(['3', '6', '8']);
    expect(memory.committed.map(valuesOf)).toEqual([[0, 1, 2], [3, 4, 5], [6]]);
    expect(resolved).toEqual(['2', '5', '6']);
    await loop.stop();
  });

  it('adds the headers an output signs over its encoded bytes to the ones it names', async () => {
    const memory = memoryBus();
    const signed = (msg: Incoming) =>
      Promise.resolve([
        {
          topic: 'out',
          key: msg.key,
          value: msg.value,
          headers: { kept: 'yes' },
          sign: (bytes: Buffer) => ({ sig: `${bytes.length}:${bytes.toString()}` }),
        },
      ]);
    const loop = await startWith(memory, { handle: signed });
    await memory.deliver(batchOf(2).batch);
    expect(memory.committed.flatMap((c) => c.records.map((r) => r.headers))).toEqual([
      { kept: 'yes', sig: '7:{"n":0}' },
      { kept: 'yes', sig: '7:{"n":1}' },
    ]);
    await loop.stop();
  });

  it('commits what it handled before a heartbeat reported a rebalance, then lets kafkajs rejoin', async () => {
    const memory = memoryBus();
    await startWith(memory);
    const rebalancing = Object.assign(new Error('rebalance'), { type: 'REBALANCE_IN_PROGRESS' });
    const { batch } = batchOf(5, {
      heartbeat: (n) => (n === 2 ? Promise.reject(rebalancing) : Promise.resolve()),
    });
    await expect(memory.deliver(batch)).rejects.toBe(rebalancing);
    expect(offsetsOf(memory.committed)).toEqual(['3']);
    expect(memory.committed.map(valuesOf)).toEqual([[0, 1, 2]]);
  });

  it('commits nothing when a heartbeat says the member was dropped from the group', async () => {
    const memory = memoryBus();
    await startWith(memory);
    const dropped = Object.assign(new Error('gone'), { type: 'UNKNOWN_MEMBER_ID' });
    const { batch, resolved } = batchOf(5, {
      heartbeat: (n) => (n === 1 ? Promise.reject(dropped) : Promise.resolve()),
    });
    await expect(memory.deliver(batch)).rejects.toBe(dropped);
    expect(memory.committed).toEqual([]);
    expect(resolved).toEqual([]);
  });

  describe('while a slow handler runs', () => {
    // Only the keep-alive timer is faked: each test moves it on, with no wait for time to pass.
    beforeEach(() => void vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] }));
    afterEach(() => void vi.useRealTimers());

    /** A handler that copies, once `release` is called; `started` settles when it is called. */
    function held() {
      const started = deferred();
      const released = deferred();
      const handle = async (msg: Incoming) => {
        started.resolve();
        await released.promise;
        return copy(msg);
      };
      return { handle, started: started.promise, release: released.resolve };
    }

    it('heartbeats every second, and stops once the chunk ends', async () => {
      const memory = memoryBus();
      const slow = held();
      await startWith(memory, { handle: slow.handle });
      let beats = 0;
      const { batch } = batchOf(1, { heartbeat: () => Promise.resolve(void beats++) });
      const delivered = memory.deliver(batch);
      await slow.started;
      for (let second = 0; second < 3; second++) await vi.advanceTimersByTimeAsync(1_000);
      expect(beats).toBe(3);
      slow.release();
      await delivered;
      // One more after the message, then none: the timer went with the chunk.
      expect(beats).toBe(4);
      await vi.advanceTimersByTimeAsync(10_000);
      expect(beats).toBe(4);
      expect(offsetsOf(memory.committed)).toEqual(['1']);
    });

    it('lets the handler finish when a heartbeat says the group is rebalancing, commits, then rejoins', async () => {
      const memory = memoryBus();
      const slow = held();
      await startWith(memory, { handle: slow.handle });
      const rebalancing = Object.assign(new Error('rebalance'), { type: 'REBALANCE_IN_PROGRESS' });
      const { batch } = batchOf(2, {
        heartbeat: (n) => (n === 1 ? Promise.reject(rebalancing) : Promise.resolve()),
      });
      const delivered = memory.deliver(batch);
      await slow.started;
      await vi.advanceTimersByTimeAsync(2_000);
      slow.release();
      await expect(delivered).rejects.toBe(rebalancing);
      // Message 0 finished and was committed; message 1 was not started.
      expect(memory.committed.map(valuesOf)).toEqual([[0]]);
    });

    it('commits nothing when a later heartbeat says the member was dropped meanwhile', async () => {
      const memory = memoryBus();
      const slow = held();
      await startWith(memory, { handle: slow.handle });
      const rebalancing = Object.assign(new Error('rebalance'), { type: 'REBALANCE_IN_PROGRESS' });
      const dropped = Object.assign(new Error('gone'), { type: 'UNKNOWN_MEMBER_ID' });
      const { batch, resolved } = batchOf(1, {
        heartbeat: (n) => Promise.reject(n === 0 ? rebalancing : dropped),
      });
      const delivered = memory.deliver(batch);
      await slow.started;
      for (let second = 0; second < 2; second++) await vi.advanceTimersByTimeAsync(1_000);
      slow.release();
      await expect(delivered).rejects.toBe(dropped);
      expect(memory.committed).toEqual([]);
      expect(resolved).toEqual([]);
    });
  });

  it('commits what came before a retriable fault, rewinds to the failed message, and resumes later', async () => {
    const memory = memoryBus();
    await startWith(memory, { handle: failingOnceAt(2) });
    const resumed = memory.nextResume();
    await memory.deliver(batchOf(4).batch);
    expect(offsetsOf(memory.committed)).toEqual(['2']);
    expect(memory.events).toEqual([`pause ${TOPIC}/0`, `seek ${TOPIC}/0 2`]);
    await resumed;
    expect(memory.events).toEqual([`pause ${TOPIC}/0`, `seek ${TOPIC}/0 2`, `resume ${TOPIC}/0`]);
  });

  it('answers a failing message with the onFatal outputs, and skips it loudly when those fail too', async () => {
    const memory = memoryBus();
    const errors: string[] = [];
    await startWith(memory, {
      logger: { ...SILENT_LOGGER, error: (_fields, message) => void errors.push(message) },
      handle: (msg) => {
        const { n } = msg.value as { n: number };
        if (n === 1 || n === 2) return Promise.reject(new TypeError(`bug at ${n}`));
        return copy(msg);
      },
      onFatal: (msg) => {
        const { n } = msg.value as { n: number };
        if (n === 2) throw new Error('the builder is broken too');
        return [{ topic: 'audit', key: null, value: { n: n + 100 } }];
      },
    });
    await memory.deliver(batchOf(4).batch);
    expect(memory.committed.map(valuesOf)).toEqual([[0, 101, 3]]);
    expect(offsetsOf(memory.committed)).toEqual(['4']);
    expect(errors).toHaveLength(3);
  });

  it('sends the chunks of partitions handled side by side in one transaction with all their offsets', async () => {
    const memory = memoryBus();
    const transactions: [number, number][] = [];
    await startWith(memory, {
      metrics: { transaction: (_s, chunks, partitions) => transactions.push([chunks, partitions]) },
    });
    const key = (n: number) => `run-${n}`;
    await Promise.all([
      memory.deliver(batchOf(2, { partition: 0, key }).batch),
      memory.deliver(batchOf(3, { partition: 1, key }).batch),
    ]);
    // Two chunks; five records to three partitions of the output topic, each counted once.
    expect(transactions).toEqual([[2, 3]]);
    expect(memory.committed).toHaveLength(1);
    expect(positionsOf(memory.committed[0])).toEqual(['0@2', '1@3']);
    expect(valuesOf(memory.committed[0]).sort()).toEqual([0, 0, 1, 1, 2]);
  });

  it('waits for a partition still being handled, so a fetch commits in one transaction', async () => {
    /** Copies, but partition 1 starts only once `until` has settled. */
    const slowSecond = (until: () => Promise<void>) => async (msg: Incoming) => {
      const first = (msg.value as { n: number }).n === 0;
      if (msg.partition === 1 && first) await until();
      return copy(msg);
    };
    // Partition 1 goes on once partition 0 was handled, while its commit lingers.
    const fastHandled = deferred();
    const lingering = memoryBus();
    await startWith(lingering, {
      handle: async (msg) => {
        const out = await slowSecond(() => fastHandled.promise)(msg);
        if (msg.partition === 0 && (msg.value as { n: number }).n === 1) fastHandled.resolve();
        return out;
      },
      // Longer than any test runs: the transaction waits for partition 1, however slow.
      commitLingerMs: 3_600_000,
    });
    await Promise.all([
      lingering.deliver(batchOf(2, { partition: 0 }).batch),
      lingering.deliver(batchOf(3, { partition: 1 }).batch),
    ]);
    expect(lingering.committed.map(positionsOf)).toEqual([['0@2', '1@3']]);
    // Without the linger the fast partition goes first, alone: partition 1 waits for its commit.
    const eager = memoryBus();
    const firstCommit = eager.nextCommit();
    await startWith(eager, { handle: slowSecond(() => firstCommit), commitLingerMs: 0 });
    await Promise.all([
      eager.deliver(batchOf(2, { partition: 0 }).batch),
      eager.deliver(batchOf(3, { partition: 1 }).batch),
    ]);
    expect(eager.committed.map(positionsOf)).toEqual([['0@2'], ['1@3']]);
  });

  it('rewinds every partition of a shared transaction that failed, and commits them again later', async () => {
    const memory = memoryBus();
    const transactions: [number, number][] = [];
    await startWith(memory, {
      metrics: { transaction: (_s, chunks, partitions) => transactions.push([chunks, partitions]) },
    });
    memory.failing.commits = 1;
    const first = batchOf(2, { partition: 0 });
    const second = batchOf(3, { partition: 1 });
    await Promise.all([memory.deliver(first.batch), memory.deliver(second.batch)]);
    expect(memory.committed).toEqual([]);
    // The aborted transaction is measured too, as having committed to no partition.
    expect(transactions).toEqual([[2, 0]]);
    expect(positionsOf(memory.aborted[0])).toEqual(['0@2', '1@3']);
    expect(first.resolved).toEqual([]);
    expect(second.resolved).toEqual([]);
    expect(memory.events.filter((e) => e.startsWith('pause')).sort()).toEqual([
      `pause ${TOPIC}/0`,
      `pause ${TOPIC}/1`,
    ]);
    // No committed offset yet, so each partition goes back to the first message of its chunk.
    await vi.waitFor(() =>
      expect(memory.events.filter((e) => e.startsWith('seek')).sort()).toEqual([
        `seek ${TOPIC}/0 0`,
        `seek ${TOPIC}/1 0`,
      ]),
    );
    await Promise.all([memory.deliver(first.batch), memory.deliver(second.batch)]);
    expect(positionsOf(memory.committed[0])).toEqual(['0@2', '1@3']);
  });

  it('handles different keys side by side and same keys in order, and commits outputs in offset order', async () => {
    const memory = memoryBus();
    // Message 0 (key a) waits until message 1 (key b) is handled: in strict order, never.
    const { handle, seen } = waitingFor(0, 1);
    await startWith(memory, { handle });
    await memory.deliver(batchOf(4, { key: (n) => (n % 2 === 0 ? 'a' : 'b') }).batch);
    expect(seen.indexOf(1)).toBeLessThan(seen.indexOf(0));
    expect(seen.indexOf(0)).toBeLessThan(seen.indexOf(2));
    expect(seen.indexOf(1)).toBeLessThan(seen.indexOf(3));
    expect(memory.committed.map(valuesOf)).toEqual([[0, 1, 2, 3]]);
    expect(offsetsOf(memory.committed)).toEqual(['4']);
  });

  it('keeps a rebalance one lane heard while another lane was still waiting for its heartbeat', async () => {
    const memory = memoryBus();
    await startWith(memory);
    const rebalancing = Object.assign(new Error('rebalance'), { type: 'REBALANCE_IN_PROGRESS' });
    // Lane a's heartbeat (the first asked) answers fine, but only once lane b's has reported the
    // rebalance and the loop has heard it.
    const reported = deferred();
    const { batch } = batchOf(4, {
      key: (n) => (n % 2 === 0 ? 'a' : 'b'),
      heartbeat: (n) => {
        if (n === 0) return reported.promise.then(nextTurn);
        if (n !== 1) return Promise.resolve();
        reported.resolve();
        return Promise.reject(rebalancing);
      },
    });
    await expect(memory.deliver(batch)).rejects.toBe(rebalancing);
    expect(offsetsOf(memory.committed)).toEqual(['2']);
    expect(memory.committed.map(valuesOf)).toEqual([[0, 1]]);
  });

  it('handles the messages of one key side by side when each releases the key at once', async () => {
    const memory = memoryBus();
    // Message 0 waits until message 2, of the same key, is handled: in key order, never.
    const waiting = waitingFor(0, 2);
    const { seen } = waiting;
    const handle = (msg: Incoming, release: () => void) => {
      release();
      return waiting.handle(msg);
    };
    await startWith(memory, { handle });
    await memory.deliver(batchOf(3).batch);
    expect(seen.indexOf(2)).toBeLessThan(seen.indexOf(0));
    expect(memory.committed.map(valuesOf)).toEqual([[0, 1, 2]]);
    expect(offsetsOf(memory.committed)).toEqual(['3']);
  });

  it("starts a key's next message once the one before released the key, and commits in offset order", async () => {
    const memory = memoryBus();
    const started: number[] = [];
    let secondStarted: () => void = () => undefined;
    const second = new Promise<void>((resolve) => (secondStarted = resolve));
    await startWith(memory, {
      handle: async (msg, release) => {
        const { n } = msg.value as { n: number };
        started.push(n);
        if (n === 1) secondStarted();
        release();
        // Message 0 ends only once message 1, of the same key, has started: unreleased, never.
        if (n === 0) await second;
        return copy(msg);
      },
    });
    await memory.deliver(batchOf(3).batch);
    expect(started).toEqual([0, 1, 2]);
    expect(memory.committed.map(valuesOf)).toEqual([[0, 1, 2]]);
    expect(offsetsOf(memory.committed)).toEqual(['3']);
  });

  it('commits nothing past a released message that then hit a retriable fault, and rewinds to it', async () => {
    const memory = memoryBus();
    const fail = failingOnceAt(1);
    const handled: number[] = [];
    const secondHandled = deferred();
    await startWith(memory, {
      handle: async (msg, release) => {
        release();
        const { n } = msg.value as { n: number };
        // Message 1 fails after message 2, of the same key, was handled.
        if (n === 1) await secondHandled.promise;
        const out = await fail(msg);
        handled.push(n);
        if (n === 2) secondHandled.resolve();
        return out;
      },
    });
    const { batch, resolved } = batchOf(3);
    await memory.deliver(batch);
    expect(handled).toEqual([0, 2]);
    expect(memory.committed.map(valuesOf)).toEqual([[0]]);
    expect(offsetsOf(memory.committed)).toEqual(['1']);
    expect(resolved).toEqual(['0']);
    expect(memory.events).toEqual([`pause ${TOPIC}/0`, `seek ${TOPIC}/0 1`]);
  });

  it('handles strictly in order with keysConcurrently 1', async () => {
    const memory = memoryBus();
    const seen: number[] = [];
    await startWith(memory, {
      keysConcurrently: 1,
      handle: async (msg, release) => {
        const { n } = msg.value as { n: number };
        // Releasing the key changes nothing here: message 1 has not started when message 0 goes
        // on after a turn of the event loop, though lanes of other keys would have.
        release();
        if (n === 0) await nextTurn();
        seen.push(n);
        return copy(msg);
      },
    });
    await memory.deliver(batchOf(4, { key: (n) => (n % 2 === 0 ? 'a' : 'b') }).batch);
    expect(seen).toEqual([0, 1, 2, 3]);
  });

  it('after a retriable fault in one key, commits only the prefix handled in full and rewinds to where it ends', async () => {
    const memory = memoryBus();
    await startWith(memory, { handle: failingOnceAt(2) });
    // Keys a b a b c: the fault at offset 2 (key a) stops every lane before its next message.
    const keys = ['a', 'b', 'a', 'b', 'c'];
    const { batch, resolved } = batchOf(5, { key: (n) => keys[n] ?? 'x' });
    await memory.deliver(batch);
    expect(memory.committed.map(valuesOf)).toEqual([[0, 1]]);
    expect(offsetsOf(memory.committed)).toEqual(['2']);
    expect(resolved).toEqual(['1']);
    expect(memory.events).toEqual([`pause ${TOPIC}/0`, `seek ${TOPIC}/0 2`]);
  });

  it('keeps what was handled when it is stopped mid-batch and leaves the rest', async () => {
    const memory = memoryBus();
    let stopping: Promise<void> | undefined;
    const loop = await startWith(memory, {
      handle: (msg) => {
        if ((msg.value as { n: number }).n === 1) stopping = loop.stop();
        return copy(msg);
      },
    });
    await memory.deliver(batchOf(4).batch);
    await stopping;
    expect(offsetsOf(memory.committed)).toEqual(['2']);
    expect(loop.ready()).toBe(false);
  });

  it('counts the lag from the records it holds when the fetch reported a high watermark behind them', async () => {
    const memory = memoryBus();
    const lags: number[] = [];
    const loop = await startWith(memory, {
      handle: () => Promise.reject(new Fault('redis_unavailable', 'down')),
      metrics: { lag: (_topic, _partition, lag) => lags.push(lag) },
    });
    // Kafka reads the high watermark before the log, so a fetch can bring record 0 with 0.
    await memory.deliver(batchOf(1, { highWatermark: '0' }).batch);
    expect(lags).toEqual([1]);
    await loop.stop();
  });

  it('stops on its own and tells onCrash once when its consumer crashes for good', async () => {
    const memory = memoryBus();
    const told: string[] = [];
    const loop = await startWith(memory, { onCrash: (error) => told.push(error.message) });
    memory.crash(new Fault(BUS_FAULTS.error, 'kafkajs restarts it'), true);
    expect(told).toEqual([]);
    memory.crash(new Fault(BUS_FAULTS.error, 'gone for good'), false);
    memory.crash(new Fault(BUS_FAULTS.error, 'told once'), false);
    expect(told).toEqual(['gone for good']);
    expect(loop.ready()).toBe(false);
  });

  it('tells onCrash when its producer was fenced, naming the transactional id and the instance id variable', async () => {
    const memory = memoryBus();
    const told: Error[] = [];
    await startWith(memory, { onCrash: (error) => told.push(error) });
    memory.failing.fenced = true;
    await memory.deliver(batchOf(1).batch);
    expect(told).toHaveLength(1);
    expect(told[0]).toMatchObject({ code: BUS_FAULTS.fenced });
    expect(told[0]?.message).toMatch(
      /the transactional id "g\.i" was fenced after \d+\.\d s in a transaction/,
    );
    expect(told[0]?.message).toContain('fenced while trying to commit');
    expect(told[0]?.message).toContain('give each its own TOOLGATE_INSTANCE_ID');
  });

  it('names its instance, group and the partitions of its last group join, none once it stopped', async () => {
    const memory = memoryBus();
    const loop = await startWith(memory, { groupId: 'toolgate.authorize', instanceId: 'host-1' });
    expect(loop.membership()).toEqual({
      instanceId: 'host-1',
      groupId: 'toolgate.authorize',
      partitions: { [TOPIC]: [0] },
    });
    memory.rejoin({ results: [], [TOPIC]: [5, 1, 3], approvals: [2] });
    expect(loop.membership().partitions).toEqual({ approvals: [2], [TOPIC]: [1, 3, 5] });
    expect(Object.keys(loop.membership().partitions)).toEqual(['approvals', TOPIC]);
    await loop.stop();
    expect(loop.membership()).toEqual({
      instanceId: 'host-1',
      groupId: 'toolgate.authorize',
      partitions: {},
    });
  });

  it('holds no partitions and is not ready from a consumer crash until it rejoins', async () => {
    const memory = memoryBus();
    const loop = await startWith(memory);
    memory.crash(new Fault(BUS_FAULTS.error, 'kafkajs restarts it'), true);
    expect(loop.membership().partitions).toEqual({});
    expect(loop.ready()).toBe(false);
    memory.rejoin({ [TOPIC]: [0] });
    expect(loop.membership().partitions).toEqual({ [TOPIC]: [0] });
    expect(loop.ready()).toBe(true);
    await loop.stop();
  });

  it('goes from starting to running to stopping to stopped, logging and reporting each state', async () => {
    const memory = memoryBus();
    const { logger, lines } = recordingLogger();
    const states: StageLoopState[] = [];
    const loop = await startWith(memory, { logger, metrics: { state: (s) => states.push(s) } });
    expect(loop.state()).toBe('running');
    await Promise.all([loop.stop(), loop.stop()]);
    expect(loop.state()).toBe('stopped');
    expect(states).toEqual(['starting', 'running', 'stopping', 'stopped']);
    const changes = lines
      .filter((line) => 'state' in line.fields)
      .map((line) => [line.level, line.msg, line.fields['from'], line.fields['state']]);
    expect(changes).toEqual([
      ['info', 'stage loop starting', undefined, 'starting'],
      ['info', 'stage loop running', 'starting', 'running'],
      ['info', 'stage loop stopping', 'running', 'stopping'],
      ['info', 'stage loop stopped', 'stopping', 'stopped'],
    ]);
  });

  it('stays crashed once it stopped on its own, and says so', async () => {
    const memory = memoryBus();
    const { logger, lines } = recordingLogger();
    const states: StageLoopState[] = [];
    const loop = await startWith(memory, { logger, metrics: { state: (s) => states.push(s) } });
    memory.crash(new Fault(BUS_FAULTS.error, 'gone for good'), false);
    expect(loop.state()).toBe('crashed');
    await loop.stop();
    expect(loop.state()).toBe('crashed');
    expect(states).toEqual(['starting', 'running', 'crashed']);
    expect(lines).toContainEqual({
      level: 'error',
      msg: 'stage loop stopped on its own',
      fields: expect.objectContaining({
        state: 'crashed',
        from: 'running',
        code: 'kafka_error',
      }) as unknown,
    });
    expect(lines.at(-1)).toMatchObject({ msg: 'stage loop stopped', fields: { state: 'crashed' } });
  });

  it('ends stopped, with what it opened closed, when its start fails', async () => {
    const memory = memoryBus();
    const states: StageLoopState[] = [];
    const refused = new Fault(BUS_FAULTS.unavailable, 'no broker');
    const bus: Bus = {
      ...memory.bus,
      consumer: (options) => ({
        ...memory.bus.consumer(options),
        connect: () => Promise.reject(refused),
      }),
    };
    await expect(
      startWith({ ...memory, bus }, { metrics: { state: (s) => states.push(s) } }),
    ).rejects.toBe(refused);
    expect(states).toEqual(['starting', 'stopping', 'stopped']);
  });
});
