/**
 * The one consume → handle → produce + commit loop every stage runs (DESIGN §2, the
 * "stage loop"). Per partition batch, in chunks of at most `maxBatchMessages`: decode and handle
 * each message, encode what the handler returns, then a transaction sends all of it and the
 * group's offset past the last handled message, and commits. Outputs and input offsets become
 * visible together or not at all; a crash before the commit means the chunk is delivered again,
 * and the handlers' deterministic ids make that harmless.
 *
 * Within a chunk, messages with the same key (a run, a tenant) are handled in offset order and
 * different keys side by side (`keysConcurrently`), so one message's Redis round trips do not
 * hold up the rest; a handler that has sent the steps whose order matters releases the key, and
 * the key's next message starts then (at once, for a message that depends on none before it).
 * Outputs keep the offset order.
 * Partitions are handled side by side (`partitionsConcurrently`), and their chunks share
 * transactions (group commit): a chunk ready while a transaction is in flight waits for it, then
 * goes out with every other chunk that became ready meanwhile, in one transaction with all their
 * offsets. A transaction costs the same broker round trips whatever it carries, so a stage's
 * latency does not grow with its partitions.
 *
 * Faults, not refusals, are handled here, with one policy:
 * - a retriable {@link Fault} (Redis, registry, Kafka down): what came before the message is
 *   committed, the partition is paused and rewound to the message, and resumed after a capped
 *   exponential backoff. Nothing after it with the same key is handled first, and nothing is
 *   skipped; messages of other keys that a lane handled meanwhile are not committed, and are
 *   handled again on redelivery (as after a crash: the handlers' ids are deterministic).
 * - anything else (a bug, a poison message, an output larger than Kafka takes): `onFatal` builds
 *   the `internal_error` outputs for that message, they are produced in its place, and the loop
 *   moves on. Outputs that are large only together go in several requests of one transaction.
 * - a transaction that fails: it is aborted, the producer is replaced (which also finishes any
 *   transaction the broker still holds open for it), and the partition is rewound to the group's
 *   committed offset, so a commit that did land is not handled twice.
 */
import type { AdapterLogger } from './adapter-logger.js';
import type {
  Assignment,
  Bus,
  BusBatch,
  BusConsumer,
  BusConsumerOptions,
  BusMessage,
  BusProducer,
  BusProducerOptions,
  OutRecord,
  PartitionOffset,
} from './kafka/index.js';
import type { Codec } from './codec.js';
import { FETCH_DEFAULTS } from './config.js';
import { Fault, faultCode, isRetriable } from './fault.js';
import { BUS_FAULTS, membershipLost } from './kafka/index.js';
import { MAX_REQUEST_RECORD_BYTES, recordBytes } from './kafka/index.js';
import { backoffDelay, DEFAULT_RETRY_POLICY, type RetryPolicy } from './retry-backoff.js';

/** One consumed message as a handler sees it. */
export interface Incoming {
  readonly topic: string;
  readonly partition: number;
  /** Offset as a decimal string. */
  readonly offset: string;
  /** The record key as UTF-8, or null. */
  readonly key: string | null;
  /** Headers as UTF-8; a name that appears more than once is left out (fails closed). */
  readonly headers: Readonly<Record<string, string>>;
  /** The decoded value; undefined when the bytes could not be decoded. */
  readonly value: unknown;
  /** The registry id of the schema the value was written under; absent for plain JSON. */
  readonly schemaId?: number;
  /** Why the bytes could not be decoded (`undecodable: …`); absent when they could. */
  readonly decodeError?: string;
  /** The record's bytes as they arrived (null for a tombstone), e.g. for quarantine. */
  readonly raw: Buffer | null;
  /** When this loop read the message. */
  readonly receivedAt: Date;
}

/** A message a handler asks the loop to produce, encoded in the wire format by the codec. */
export interface EncodedOutgoing {
  /** Full topic name. */
  readonly topic: string;
  readonly key: string | null;
  readonly value: unknown;
  readonly headers?: Readonly<Record<string, string>>;
  /** Registry subject of the value's schema; defaults to `<topic>-value`. */
  readonly subject?: string;
  /** Headers computed from the encoded bytes (an integrity tag), added to `headers`. */
  readonly sign?: (bytes: Buffer) => Readonly<Record<string, string>>;
}

/** Bytes produced as they are, with no schema: only for quarantining undecodable input. */
export interface RawOutgoing {
  readonly topic: string;
  readonly key: string | null;
  readonly raw: Buffer;
  readonly headers?: Readonly<Record<string, string>>;
}

/** A message to produce. */
export type Outgoing = EncodedOutgoing | RawOutgoing;

/** Callbacks the loop reports to; all optional. Times are in seconds. */
export interface StageLoopMetrics {
  /** A message was read from `topic`. */
  messageIn?(topic: string): void;
  /** One message was decoded, handled and encoded in `seconds`. */
  handled?(seconds: number): void;
  /** One chunk of `size` messages was handled and committed in `seconds`. */
  batch?(seconds: number, size: number): void;
  /**
   * One transaction, carrying `chunks` shares (chunks or produce-only sends), took `seconds` and
   * wrote to `partitions` partitions (0 when it failed; the group's offsets partition not counted).
   */
  transaction?(seconds: number, chunks: number, partitions: number): void;
  /**
   * After a commit, and when the partition is held back by a fault: messages of the partition not
   * yet consumed by the group.
   */
  lag?(topic: string, partition: number, lag: number): void;
  /** The partition went to another member of the group: its lag is no longer this loop's. */
  forgetLag?(topic: string, partition: number): void;
  /** A fault was caught. */
  fault?(code: string, retriable: boolean): void;
}

/** One input topic of a stage. */
export interface StageTopic {
  /** Full topic name. */
  readonly name: string;
  /** True for topics others write (proposals, approvals, results): plain JSON is accepted. */
  readonly plainJsonAllowed: boolean;
}

/** Options of {@link startStageLoop}. */
export interface StageLoopOptions {
  /** The stage's name, for logs (`stage` field). */
  readonly stage: string;
  /** Consumer group, also the first part of the transactional id. */
  readonly groupId: string;
  readonly topics: readonly StageTopic[];
  readonly bus: Bus;
  readonly codec: Codec;
  readonly logger: AdapterLogger;
  /**
   * Names this instance: the transactional id is `<groupId>.<instanceId>`. Keep it stable across
   * restarts (a pod name, not a pid): a restarted producer with the same id aborts the open
   * transaction of the crashed one at once; with a new id, read-committed readers of the output
   * partitions wait until the old transaction times out.
   */
  readonly instanceId: string;
  /**
   * Handles one message. A thrown retriable Fault retries it later; anything else is fatal.
   * `release()` lets the next message of the same key start before this one is handled: call it
   * once every step whose order matters among them has been issued (Redis runs the commands of
   * one connection in the order they were sent, see the store). Not calling it keeps the key's
   * messages one after another; with `keysConcurrently` 1 it does nothing.
   */
  handle(msg: Incoming, release: () => void): Promise<readonly Outgoing[]>;
  /** The outputs for a message whose handling failed fatally (internal_error audit + observation). */
  onFatal?(msg: Incoming, error: unknown): readonly Outgoing[];
  /** Called once if the loop stops on its own (fenced producer, a consumer crash kafkajs does not restart). */
  onCrash?(error: Error): void;
  /** Most messages of one partition per chunk (a transaction may carry several chunks). Default 500. */
  readonly maxBatchMessages?: number;
  /** Partitions handled at the same time, each in order; their chunks share transactions. Default 16. */
  readonly partitionsConcurrently?: number;
  /**
   * Keys of one chunk handled at the same time; messages with the same key (a run, a tenant)
   * are always handled in offset order. Default 32; 1 handles a chunk strictly in order.
   */
  readonly keysConcurrently?: number;
  /**
   * How long a transaction waits for chunks of other partitions still being handled, so they
   * commit together rather than in a second transaction right after. Default 25 ms; 0 commits
   * what is ready at once.
   */
  readonly commitLingerMs?: number;
  /** Backoff after a retriable fault. Default 200 ms doubling to 10 s. */
  readonly retry?: RetryPolicy;
  /** Bound on stop(): waiting for the batch in hand, leaving the group, closing. Default 10000 ms. */
  readonly stopTimeoutMs?: number;
  /** A group with no committed offset starts at the earliest record (default) or the latest. */
  readonly fromBeginning?: boolean;
  /** Transaction timeout, see {@link BusProducerOptions.transactionTimeoutMs}. */
  readonly transactionTimeoutMs?: number;
  /**
   * A fetch of a busy stage is answered once `fetchMinBytes` of records are ready or after
   * `maxWaitTimeMs`, so it handles (and commits) larger chunks: a transaction costs about six
   * broker round trips whatever it carries, and under load a stage that fetched whatever was there
   * spent most of its CPU on transactions of a few messages. A stage is busy while its last fetch
   * brought at least `fetchBusyMinBytes`; otherwise the next fetch waits for the first record, up
   * to `idleMaxWaitTimeMs`: an idle stage long-polls, and under light traffic, or after a quiet
   * spell, a record is not held back. Defaults 32 KiB, 25 ms, 2 KiB and 500 ms: under steady
   * traffic a hop may wait up to 25 ms for more. `fetchMinBytes: 1` takes whatever is there. A
   * process sets the first three from `TOOLGATE_FETCH_*` ({@link fetchOptions}). See
   * {@link BusConsumerOptions.minBytes}.
   */
  readonly fetchMinBytes?: number;
  /** How long a busy stage's fetch waits for `fetchMinBytes`, in ms; at least 1. Default 25. */
  readonly maxWaitTimeMs?: number;
  /** How long an idle stage's fetch waits for its first record, in ms. Default 500. */
  readonly idleMaxWaitTimeMs?: number;
  /**
   * Bytes of records (keys and values) a fetch must bring for the next one to wait for
   * `fetchMinBytes`. Default 2 KiB, about three envelopes; 1 makes any record count.
   */
  readonly fetchBusyMinBytes?: number;
  /** Group session timeout, see {@link BusConsumerOptions.sessionTimeoutMs}. */
  readonly sessionTimeoutMs?: number;
  readonly metrics?: StageLoopMetrics;
}

/** A running stage loop. */
export interface StageLoop {
  /** True once the consumer joined its group with at least one partition, until it stops. */
  ready(): boolean;
  /**
   * Produces timer-driven outputs (sweepers) in one transaction of the loop's own producer.
   * Throws a retriable Fault when Kafka or the registry is unavailable (nothing was written),
   * a non-retriable one for an invalid message.
   */
  produceTransactional(outgoing: readonly Outgoing[]): Promise<void>;
  /** Stops consuming, commits or abandons the batch in hand, leaves the group. Idempotent. */
  stop(): Promise<void>;
}

const DEFAULT_MAX_BATCH = 500;
const DEFAULT_PARTITIONS_CONCURRENTLY = 16;
const DEFAULT_KEYS_CONCURRENTLY = 32;
const DEFAULT_COMMIT_LINGER_MS = 25;
const DEFAULT_STOP_TIMEOUT_MS = 10_000;

/** What handling a chunk produced. */
interface ChunkOutcome {
  readonly records: readonly OutRecord[];
  /** How many messages of the chunk were handled (their outputs are in `records`). */
  readonly handled: number;
  /** The message that hit a retriable fault, if one did. */
  readonly halt?: { readonly offset: string; readonly fault: Fault };
  /** A heartbeat failed: rethrown after the commit, or without one if the member was dropped. */
  readonly interrupted?: Error;
}

/** Records waiting for the next transaction, and whom to tell how it went. */
interface TransactionShare {
  readonly records: readonly OutRecord[];
  /** The group offset to commit with them; none for timer-driven outputs. */
  readonly position: PartitionOffset | undefined;
  done(error: Error | undefined): void;
}

/** The chunk's indexes grouped by record key, each group in offset order. */
function lanesByKey(chunk: readonly BusMessage[]): (readonly number[])[] {
  const lanes = new Map<string, number[]>();
  chunk.forEach((message, index) => {
    const key = message.key === null ? '' : message.key.toString('latin1');
    const lane = lanes.get(key);
    if (lane === undefined) lanes.set(key, [index]);
    else lane.push(index);
  });
  return [...lanes.values()];
}

function seconds(since: number): number {
  return (performance.now() - since) / 1000;
}

function record(
  out: Outgoing,
  value: Buffer,
  headers: Readonly<Record<string, string>> | undefined,
): OutRecord {
  return headers === undefined
    ? { topic: out.topic, key: out.key, value }
    : { topic: out.topic, key: out.key, value, headers };
}

/**
 * `r`, if the broker can take it; else a fault that is not retriable, so that its message gets the
 * onFatal outputs: sent, it would fail its transaction, and every transaction after it, for good.
 */
function fitting(r: OutRecord): OutRecord {
  const bytes = recordBytes(r);
  if (bytes <= MAX_REQUEST_RECORD_BYTES) return r;
  throw new Fault(
    BUS_FAULTS.recordTooLarge,
    `a record of ${String(bytes)} bytes for ${r.topic} is larger than Kafka takes (${String(MAX_REQUEST_RECORD_BYTES)})`,
    { retriable: false },
  );
}

function plusOne(offset: string): string {
  return (BigInt(offset) + 1n).toString();
}

function errorFields(error: unknown): object {
  if (error instanceof Fault)
    return { code: error.code, retriable: error.retriable, err: error.message };
  if (error instanceof Error) return { err: `${error.name}: ${error.message}` };
  return { err: String(error) };
}

/** Rejects with a timeout error when `work` takes longer than `ms`. */
async function within<T>(ms: number, what: string, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took longer than ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Starts a stage: connects a transactional producer (`<groupId>.<instanceId>`, which fences an
 * older one with the same id), joins the group, and consumes until {@link StageLoop.stop}.
 * Rejects (after closing what it opened) when Kafka cannot be reached at start.
 */
export async function startStageLoop(options: StageLoopOptions): Promise<StageLoop> {
  const loop = new Loop(options);
  await loop.start();
  return {
    ready: () => loop.ready(),
    produceTransactional: (outgoing) => loop.produceTransactional(outgoing),
    stop: () => loop.stop(),
  };
}

/** A loaded configuration's fetch settings (`TOOLGATE_FETCH_*`). */
export interface FetchConfig {
  readonly fetchMaxWaitMs: number;
  readonly fetchMinBytes: number;
  readonly fetchBusyMinBytes: number;
}

/** The stage-loop options of `config`'s fetch settings; every loop of a process passes them. */
export function fetchOptions(
  config: FetchConfig,
): Pick<StageLoopOptions, 'maxWaitTimeMs' | 'fetchMinBytes' | 'fetchBusyMinBytes'> {
  return {
    maxWaitTimeMs: config.fetchMaxWaitMs,
    fetchMinBytes: config.fetchMinBytes,
    fetchBusyMinBytes: config.fetchBusyMinBytes,
  };
}

// A class for the loop's mutable state, so each step is a short method rather than one closure.
class Loop {
  private readonly o: StageLoopOptions;
  private readonly log: AdapterLogger;
  private readonly metrics: StageLoopMetrics;
  private readonly retry: RetryPolicy;
  private readonly maxBatch: number;
  private readonly keysConcurrently: number;
  private readonly plainJson: ReadonlyMap<string, boolean>;
  private readonly waiting: TransactionShare[] = [];
  private flushing: Promise<void> | undefined;
  /** Chunks being handled now; the next transaction waits for them (see untilHandled). */
  private handling = 0;
  private allHandled: (() => void) | undefined;
  private readonly commitLingerMs: number;
  private readonly attempts = new Map<string, number>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly consumer: BusConsumer;
  private producer: BusProducer | undefined;
  private running = false;
  private assigned = 0;
  /** The partitions whose lag this loop reported (`topic/partition`). */
  private readonly lagged = new Map<string, { topic: string; partition: number }>();
  private stopping: Promise<void> | undefined;
  private crashed = false;

  constructor(options: StageLoopOptions) {
    this.o = options;
    this.log = options.logger;
    this.metrics = options.metrics ?? {};
    this.retry = options.retry ?? DEFAULT_RETRY_POLICY;
    this.maxBatch = Math.max(1, options.maxBatchMessages ?? DEFAULT_MAX_BATCH);
    this.keysConcurrently = Math.max(1, options.keysConcurrently ?? DEFAULT_KEYS_CONCURRENTLY);
    this.commitLingerMs = Math.max(0, options.commitLingerMs ?? DEFAULT_COMMIT_LINGER_MS);
    this.plainJson = new Map(options.topics.map((t) => [t.name, t.plainJsonAllowed]));
    const consumerOptions: BusConsumerOptions = {
      groupId: options.groupId,
      readCommitted: true,
      minBytes: Math.max(1, options.fetchMinBytes ?? FETCH_DEFAULTS.minBytes),
      // Not 0: with every partition paused (a fault being retried) kafkajs sleeps this long
      // between fetches, and 0 would spin.
      maxWaitTimeMs: Math.max(1, options.maxWaitTimeMs ?? FETCH_DEFAULTS.maxWaitMs),
      idleMaxWaitTimeMs: Math.max(0, options.idleMaxWaitTimeMs ?? FETCH_DEFAULTS.idleMaxWaitMs),
      busyMinBytes: Math.max(1, options.fetchBusyMinBytes ?? FETCH_DEFAULTS.busyMinBytes),
      ...(options.sessionTimeoutMs === undefined
        ? {}
        : { sessionTimeoutMs: options.sessionTimeoutMs }),
      partitionsConcurrently: Math.max(
        1,
        options.partitionsConcurrently ?? DEFAULT_PARTITIONS_CONCURRENTLY,
      ),
    };
    this.consumer = options.bus.consumer(consumerOptions);
  }

  ready(): boolean {
    return this.running && this.assigned > 0;
  }

  async start(): Promise<void> {
    this.consumer.onGroupJoin((assignment) => {
      this.assigned = Object.values(assignment).reduce((n, ps) => n + ps.length, 0);
      this.forgetLagOutside(assignment);
      this.log.info({ assignment }, 'joined the consumer group');
    });
    this.consumer.onCrash((error, restarting) => this.onConsumerCrash(error, restarting));
    try {
      await this.renewProducer();
      await this.consumer.connect();
      await this.consumer.subscribe(
        this.o.topics.map((t) => t.name),
        { fromBeginning: this.o.fromBeginning ?? true },
      );
      this.running = true;
      await this.consumer.run((batch) => this.onBatch(batch));
    } catch (error) {
      await this.stop();
      throw error;
    }
  }

  // ---- consuming ---------------------------------------------------------------------------

  private async onBatch(batch: BusBatch): Promise<void> {
    const { messages } = batch;
    for (let start = 0; start < messages.length; start += this.maxBatch) {
      if (!this.running || batch.isStale()) return;
      const chunk = messages.slice(start, start + this.maxBatch);
      const isLast = start + this.maxBatch >= messages.length;
      if (!(await this.runChunk(batch, chunk, isLast))) return;
    }
  }

  /** Handles and commits one chunk; false when the rest of the batch must wait. */
  private async runChunk(
    batch: BusBatch,
    chunk: readonly BusMessage[],
    isLast: boolean,
  ): Promise<boolean> {
    const started = performance.now();
    this.handling += 1;
    let outcome: ChunkOutcome;
    try {
      outcome = await this.handleChunk(batch, chunk);
    } finally {
      this.handling -= 1;
      if (this.handling === 0) this.allHandled?.();
    }
    // Out of the group: another member may own the partition now, so nothing is committed; kafkajs
    // rejoins and the chunk is delivered again to whoever owns it.
    if (outcome.interrupted !== undefined && membershipLost(outcome.interrupted)) {
      throw outcome.interrupted;
    }
    const last = chunk[outcome.handled - 1];
    if (last !== undefined) {
      const complete = outcome.handled === chunk.length && isLast;
      // Past the last record of the fetch, so control records behind it are skipped as well.
      const next = plusOne(complete ? batch.lastOffset() : last.offset);
      const position = { topic: batch.topic, partition: batch.partition, offset: next };
      if (!(await this.commit(outcome.records, position))) {
        const first = chunk[0]?.offset ?? last.offset;
        this.reportLag(batch, first);
        this.rewindAfterFailedCommit(batch, first);
        return false;
      }
      batch.resolveOffset(last.offset);
      this.metrics.batch?.(seconds(started), outcome.handled);
      this.reportLag(batch, next);
    }
    if (outcome.halt !== undefined) {
      // Held at the failed message, perhaps with nothing committed: the lag counts from there.
      this.reportLag(batch, outcome.halt.offset);
      this.retryLater(batch.topic, batch.partition, outcome.halt.offset, outcome.halt.fault);
      return false;
    }
    // Committed first, as a member does when its partitions are revoked; kafkajs then rejoins.
    if (outcome.interrupted !== undefined) throw outcome.interrupted;
    return outcome.handled === chunk.length;
  }

  /**
   * Handles a chunk: messages with the same key in order (the next one starts once the one before
   * released the key or was handled), different keys side by side (at most `keysConcurrently`
   * lanes at once), so one message's Redis round trips do not hold up the others.
   * The outcome covers the longest prefix of the chunk that was handled in full; whatever a lane
   * handled past it is delivered again, which the handlers' deterministic ids make harmless.
   */
  private async handleChunk(batch: BusBatch, chunk: readonly BusMessage[]): Promise<ChunkOutcome> {
    const outputs: OutRecord[][] = [];
    const lanes = this.lanesOf(chunk);
    // The first index not handled, and why handling stopped.
    let stop = chunk.length;
    let fault: Fault | undefined;
    let interrupted: Error | undefined;
    const stopAt = (index: number) => (stop = Math.min(stop, index));
    const handleAt = async (index: number, release: () => void) => {
      const message = chunk[index] as BusMessage;
      try {
        outputs[index] = await this.handleOne(batch.topic, batch.partition, message, release);
      } catch (error) {
        // handleOne throws only retriable faults; anything else is a bug of the loop itself,
        // and kafkajs delivers the batch again.
        if (!(error instanceof Fault && error.retriable)) throw error;
        fault ??= error;
        return stopAt(index);
      }
      // Slow handlers must not cost the membership (kafkajs sends one per heartbeat interval).
      // Read after the await: another lane may have been interrupted meanwhile.
      const beat = await batch.heartbeat().then(
        () => undefined,
        (error: unknown) => (error instanceof Error ? error : new Error(String(error))),
      );
      interrupted ??= beat;
      return undefined;
    };
    // A lane's next message starts once the one before it released its key or was handled.
    const releases = this.keysConcurrently > 1;
    const runLane = async (lane: readonly number[]) => {
      const started: Promise<unknown>[] = [];
      for (const index of lane) {
        // Stopping, or another lane hit a fault: leave the rest for the next delivery.
        if (!this.running || fault !== undefined || interrupted !== undefined) {
          stopAt(index);
          break;
        }
        let release: () => void = () => undefined;
        const released = new Promise<void>((resolve) => (release = resolve));
        const handled = handleAt(index, releases ? release : () => undefined);
        started.push(handled);
        await Promise.race([released, handled.catch(() => undefined)]);
      }
      await Promise.all(started);
    };
    const queue = [...lanes];
    const worker = async () => {
      for (let lane = queue.shift(); lane !== undefined; lane = queue.shift()) await runLane(lane);
    };
    const settled = await Promise.allSettled(
      Array.from({ length: Math.min(this.keysConcurrently, lanes.length) }, worker),
    );
    for (const result of settled) if (result.status === 'rejected') throw result.reason;
    // The backoff grows while the partition keeps failing, and starts over once a chunk goes through.
    if (fault === undefined && stop > 0) this.attempts.delete(`${batch.topic}/${batch.partition}`);
    const records = outputs.slice(0, stop).flat();
    const halted: Fault | undefined = stop < chunk.length ? fault : undefined;
    return {
      records,
      handled: stop,
      ...(halted === undefined
        ? {}
        : { halt: { offset: (chunk[stop] as BusMessage).offset, fault: halted } }),
      ...(interrupted === undefined ? {} : { interrupted }),
    };
  }

  /** The chunk's indexes in the lanes they are handled in, each lane in offset order. */
  private lanesOf(chunk: readonly BusMessage[]): (readonly number[])[] {
    // One at a time means one lane in offset order, whatever the keys.
    if (this.keysConcurrently === 1) return [chunk.map((_, index) => index)];
    return lanesByKey(chunk);
  }

  /** Decodes, handles and encodes one message; throws only a retriable Fault. */
  private async handleOne(
    topic: string,
    partition: number,
    message: BusMessage,
    release: () => void,
  ): Promise<OutRecord[]> {
    const started = performance.now();
    this.metrics.messageIn?.(topic);
    const incoming = await this.decode(topic, partition, message);
    try {
      return await this.encodeAll(await this.o.handle(incoming, release));
    } catch (error) {
      if (isRetriable(error)) throw error;
      return await this.fatal(incoming, error);
    } finally {
      this.metrics.handled?.(seconds(started));
    }
  }

  private async decode(topic: string, partition: number, message: BusMessage): Promise<Incoming> {
    const plainJsonAllowed = this.plainJson.get(topic) ?? false;
    const decoded = await this.o.codec.decode(message.value, { plainJsonAllowed });
    const base = {
      topic,
      partition,
      offset: message.offset,
      key: message.key?.toString('utf8') ?? null,
      headers: message.headers,
      raw: message.value,
      receivedAt: new Date(),
    };
    if ('error' in decoded) return { ...base, value: undefined, decodeError: decoded.error };
    const { value, schemaId } = decoded;
    return schemaId === null ? { ...base, value } : { ...base, value, schemaId };
  }

  /** The onFatal outputs for a message whose handling failed; [] when even those fail. */
  private async fatal(incoming: Incoming, error: unknown): Promise<OutRecord[]> {
    const where = {
      topic: incoming.topic,
      partition: incoming.partition,
      offset: incoming.offset,
    };
    const code = faultCode(error);
    this.metrics.fault?.(code, false);
    this.log.error(
      { ...where, ...errorFields(error) },
      'handling failed; producing the internal_error outputs and moving on',
    );
    try {
      return await this.encodeAll(this.o.onFatal?.(incoming, error) ?? []);
    } catch (fatalError) {
      if (isRetriable(fatalError)) throw fatalError;
      this.metrics.fault?.('internal_error', false);
      // Logged loudly rather than blocking the partition for good: nothing was executed for it.
      this.log.error(
        { ...where, ...errorFields(fatalError) },
        'the internal_error outputs failed too; message skipped without outputs',
      );
      return [];
    }
  }

  private encodeAll(outgoing: readonly Outgoing[]): Promise<OutRecord[]> {
    return Promise.all(outgoing.map((out) => this.encodeOne(out)));
  }

  private async encodeOne(out: Outgoing): Promise<OutRecord> {
    if ('raw' in out) return fitting(record(out, out.raw, out.headers));
    const value = await this.o.codec.encode(out.subject ?? `${out.topic}-value`, out.value);
    const headers = out.sign === undefined ? out.headers : { ...out.headers, ...out.sign(value) };
    return fitting(record(out, value, headers));
  }

  /**
   * The partition's lag as of this batch: the records from `position` (the next one the group will
   * consume) to the end of the partition when it was fetched. Reported after every commit, and
   * whenever the partition is held back, so a stage that keeps failing does not show the lag of
   * its last success.
   */
  private reportLag(batch: BusBatch, position: string): void {
    const { topic, partition } = batch;
    // The broker reads the high watermark before the log, so a fetch can bring records at or past
    // it (record 0 with a high watermark of 0): the end is at least past what the fetch covered.
    const watermark = BigInt(batch.highWatermark);
    const covered = BigInt(batch.lastOffset()) + 1n;
    const lag = (covered > watermark ? covered : watermark) - BigInt(position);
    this.lagged.set(`${topic}/${partition}`, { topic, partition });
    this.metrics.lag?.(topic, partition, lag > 0n ? Number(lag) : 0);
  }

  /** After a rebalance: the lag of a partition another member owns now is that member's to say. */
  private forgetLagOutside(assignment: Assignment): void {
    for (const [key, { topic, partition }] of this.lagged) {
      if (assignment[topic]?.includes(partition) === true) continue;
      this.lagged.delete(key);
      this.metrics.forgetLag?.(topic, partition);
    }
  }

  // ---- retries -----------------------------------------------------------------------------

  /** Pauses the partition at `offset` and resumes it after the backoff for this attempt. */
  private retryLater(topic: string, partition: number, offset: string, fault: Fault): void {
    const key = `${topic}/${partition}`;
    const attempt = (this.attempts.get(key) ?? 0) + 1;
    this.attempts.set(key, attempt);
    const delayMs = backoffDelay(attempt, this.retry);
    this.metrics.fault?.(fault.code, true);
    this.log.warn(
      {
        topic,
        partition,
        offset,
        code: fault.code,
        attempt,
        delayMs,
        err: fault.message,
      },
      'retriable fault; pausing the partition and delivering the message again',
    );
    this.consumer.pause(topic, partition);
    this.consumer.seek(topic, partition, offset);
    this.later(delayMs, () => Promise.resolve(this.consumer.resume(topic, partition)));
  }

  /**
   * After a failed transaction: pause, and when the backoff is over rewind to the group's
   * committed offset (the commit may have landed even though the answer was lost), then resume.
   */
  private rewindAfterFailedCommit(batch: BusBatch, firstOffset: string): void {
    const { topic, partition } = batch;
    const key = `${topic}/${partition}`;
    const attempt = (this.attempts.get(key) ?? 0) + 1;
    this.attempts.set(key, attempt);
    this.consumer.pause(topic, partition);
    this.later(backoffDelay(attempt, this.retry), async () => {
      const committed = await this.o.bus.committedOffset(this.o.groupId, topic, partition);
      // No committed offset at all: this chunk's commit cannot have landed.
      this.consumer.seek(topic, partition, committed ?? firstOffset);
      this.consumer.resume(topic, partition);
    });
  }

  /** Runs `job` after `delayMs`; if it fails (Kafka still down) it is tried again later. */
  private later(delayMs: number, job: () => Promise<void>, attempt = 1): void {
    if (!this.running) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      if (!this.running) return;
      job().catch((error: unknown) => {
        this.log.warn(errorFields(error), 'could not resume a paused partition yet');
        this.later(backoffDelay(attempt + 1, this.retry), job, attempt + 1);
      });
    }, delayMs);
    this.timers.add(timer);
  }

  // ---- producing ---------------------------------------------------------------------------

  /** Sends `records` and moves the group to `position` in a transaction; false if it failed. */
  private commit(records: readonly OutRecord[], position: PartitionOffset): Promise<boolean> {
    return this.share(records, position).then(
      () => true,
      () => false,
    );
  }

  async produceTransactional(outgoing: readonly Outgoing[]): Promise<void> {
    await this.share(await this.encodeAll(outgoing), undefined);
  }

  /** Queues `records` (and `position`) for the next transaction; settles when it has ended. */
  private share(
    records: readonly OutRecord[],
    position: PartitionOffset | undefined,
  ): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.waiting.push({
        records,
        position,
        done: (error) => (error === undefined ? resolve() : reject(error)),
      });
      this.flushing ??= this.flush();
    });
  }

  /** One producer, one open transaction: each takes everything queued while the last one ran. */
  private async flush(): Promise<void> {
    // Chunks of other partitions of the same fetch are often a moment behind: let them board too.
    await new Promise<void>((resolve) => setImmediate(resolve));
    while (this.waiting.length > 0) {
      await this.untilHandled();
      const shares = this.waiting.splice(0);
      let failure: Error | undefined;
      let partitions = 0;
      const started = performance.now();
      try {
        partitions = await this.inTransaction(shares);
      } catch (error) {
        failure = error instanceof Error ? error : new Error(String(error));
      }
      this.metrics.transaction?.(seconds(started), shares.length, partitions);
      if (failure !== undefined) await this.afterFailedTransaction(failure);
      for (const share of shares) share.done(failure);
    }
    this.flushing = undefined;
  }

  /**
   * Waits until no chunk is being handled (each has joined the queue or given up), at most
   * `commitLingerMs`: kafkajs fetches again only once every chunk of a fetch is done, so one
   * transaction for all of them is usually no later than the last of two would have been.
   */
  private untilHandled(): Promise<void> {
    if (this.handling === 0 || this.commitLingerMs === 0) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.allHandled = undefined;
        resolve();
      };
      const timer = setTimeout(done, this.commitLingerMs);
      this.allHandled = done;
    });
  }

  /** Sends the shares' records and offsets in one transaction; the partitions it wrote to. */
  private async inTransaction(shares: readonly TransactionShare[]): Promise<number> {
    const records = shares.flatMap((share) => share.records);
    const positions = shares.flatMap((share) =>
      share.position === undefined ? [] : [share.position],
    );
    const producer = this.producer ?? (await this.renewProducer());
    const tx = await producer.transaction();
    try {
      const written = records.length > 0 ? await tx.send(records) : [];
      if (positions.length > 0) await tx.sendOffsets(this.o.groupId, positions);
      await tx.commit();
      return new Set(written.map((p) => `${p.partition}:${p.topic}`)).size;
    } catch (error) {
      if (tx.isActive()) await tx.abort().catch(() => undefined);
      throw error;
    }
  }

  private async afterFailedTransaction(error: unknown): Promise<void> {
    const fenced = error instanceof Fault && error.code === BUS_FAULTS.fenced;
    this.metrics.fault?.(error instanceof Fault ? error.code : BUS_FAULTS.error, !fenced);
    if (fenced) {
      this.crash(error);
      return;
    }
    this.log.warn(errorFields(error), 'transaction failed; replacing the producer and rewinding');
    // kafkajs cannot recover a producer whose commit or abort failed half-way; a new producer with
    // the same id bumps the epoch, which also settles whatever the old one left open.
    await this.renewProducer().catch((renewError: unknown) => {
      this.log.warn(errorFields(renewError), 'could not reconnect the producer yet');
    });
  }

  private async renewProducer(): Promise<BusProducer> {
    if (this.stopping !== undefined) {
      throw new Fault(BUS_FAULTS.unavailable, 'the stage loop is stopping', { retriable: true });
    }
    const old = this.producer;
    this.producer = undefined;
    if (old !== undefined) await old.disconnect().catch(() => undefined);
    const producerOptions: BusProducerOptions = {
      transactionalId: `${this.o.groupId}.${this.o.instanceId}`,
      ...(this.o.transactionTimeoutMs === undefined
        ? {}
        : { transactionTimeoutMs: this.o.transactionTimeoutMs }),
    };
    const fresh = this.o.bus.producer(producerOptions);
    await fresh.connect();
    this.producer = fresh;
    return fresh;
  }

  // ---- stopping ----------------------------------------------------------------------------

  private onConsumerCrash(error: Fault, restarting: boolean): void {
    if (restarting) {
      this.log.warn(errorFields(error), 'consumer crashed; kafkajs restarts it');
      return;
    }
    this.crash(error);
  }

  private crash(error: Error): void {
    if (this.crashed) return;
    this.crashed = true;
    this.log.error(errorFields(error), 'stage loop stopped on its own');
    // Not awaited: a crash is noticed inside a batch, and stopping waits for that batch to end.
    void this.stop();
    this.o.onCrash?.(error);
  }

  stop(): Promise<void> {
    this.stopping ??= this.close();
    return this.stopping;
  }

  private async close(): Promise<void> {
    this.running = false;
    this.assigned = 0;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    const ms = this.o.stopTimeoutMs ?? DEFAULT_STOP_TIMEOUT_MS;
    const deadline = performance.now() + ms;
    const left = () => Math.max(1, deadline - performance.now());
    const steps: [string, () => Promise<unknown>][] = [
      ['leave the group', () => this.consumer.disconnect()],
      ['finish the open transaction', () => this.flushing ?? Promise.resolve()],
      ['disconnect the producer', () => this.producer?.disconnect() ?? Promise.resolve()],
    ];
    for (const [what, step] of steps) {
      await within(left(), what, step()).catch((error: unknown) =>
        this.log.warn(errorFields(error), `stop: could not ${what}`),
      );
    }
    this.log.info({}, 'stage loop stopped');
  }
}
