/**
 * The options of a stage loop, and their check: one step that either fills the defaults and
 * freezes them, or names every option out of its range. Nothing is clamped: a value the loop
 * cannot use is a mistake to report, not one to guess the meaning of. The fetch options' ranges
 * are those of TOOLGATE_FETCH_* (`config/fetch-settings.ts`).
 */
import type { AdapterLogger } from '../adapter-logger.js';
import type { Codec } from '../codec.js';
import {
  FETCH_DEFAULTS,
  FETCH_LIMITS,
  type FetchOptions,
  type WholeNumberRange,
} from '../config/fetch-settings.js';
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from '../retry-backoff.js';
import type { Bus } from './bus-port.js';
import type { Incoming, Outgoing, StageLoopMetrics, StageTopic } from './types.js';

/** Options of `startStageLoop`; the fetch options are {@link FetchOptions}. */
export interface StageLoopOptions extends FetchOptions {
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
  /** Transaction timeout, see `BusProducerOptions.transactionTimeoutMs`. */
  readonly transactionTimeoutMs?: number;
  /** Group session timeout, see `BusConsumerOptions.sessionTimeoutMs`. */
  readonly sessionTimeoutMs?: number;
  /**
   * While a chunk is being handled, how often the loop asks kafkajs for a heartbeat, in ms
   * (kafkajs sends one at most every heartbeat interval), so that a handler longer than the
   * session timeout does not cost the membership. Default 1000.
   */
  readonly heartbeatEveryMs?: number;
  readonly metrics?: StageLoopMetrics;
}

/** The options with a default, each filled. */
type Defaulted =
  | 'maxBatchMessages'
  | 'partitionsConcurrently'
  | 'keysConcurrently'
  | 'commitLingerMs'
  | 'retry'
  | 'stopTimeoutMs'
  | 'fromBeginning'
  | 'heartbeatEveryMs'
  | 'metrics'
  | keyof FetchOptions;

/** Checked options, every default filled, frozen. */
export type ResolvedStageLoopOptions = Readonly<
  Omit<StageLoopOptions, Defaulted> & Required<Pick<StageLoopOptions, Defaulted>>
>;

/** Either options the loop can run with, or every problem with them. */
export type StageLoopOptionsOutcome =
  | { readonly ok: true; readonly options: ResolvedStageLoopOptions }
  | { readonly ok: false; readonly problems: readonly string[] };

/** The defaults of the options that are not fetch options. */
export const STAGE_LOOP_DEFAULTS = {
  maxBatchMessages: 500,
  partitionsConcurrently: 16,
  keysConcurrently: 32,
  commitLingerMs: 25,
  stopTimeoutMs: 10_000,
  heartbeatEveryMs: 1_000,
} as const;

const AT_LEAST_ONE: WholeNumberRange = { minimum: 1 };

/** The range of every numeric option; `retry.*` are the backoff's. */
const RANGES: readonly (readonly [
  string,
  (o: StageLoopOptions) => number | undefined,
  WholeNumberRange,
])[] = [
  ['maxBatchMessages', (o) => o.maxBatchMessages, AT_LEAST_ONE],
  ['partitionsConcurrently', (o) => o.partitionsConcurrently, AT_LEAST_ONE],
  ['keysConcurrently', (o) => o.keysConcurrently, AT_LEAST_ONE],
  ['commitLingerMs', (o) => o.commitLingerMs, { minimum: 0 }],
  ['stopTimeoutMs', (o) => o.stopTimeoutMs, AT_LEAST_ONE],
  ['transactionTimeoutMs', (o) => o.transactionTimeoutMs, AT_LEAST_ONE],
  ['sessionTimeoutMs', (o) => o.sessionTimeoutMs, AT_LEAST_ONE],
  ['heartbeatEveryMs', (o) => o.heartbeatEveryMs, AT_LEAST_ONE],
  ['retry.initialMs', (o) => o.retry?.initialMs, AT_LEAST_ONE],
  ['retry.maxMs', (o) => o.retry?.maxMs, AT_LEAST_ONE],
  ['fetchMinBytes', (o) => o.fetchMinBytes, FETCH_LIMITS.fetchMinBytes],
  ['maxWaitTimeMs', (o) => o.maxWaitTimeMs, FETCH_LIMITS.maxWaitTimeMs],
  ['idleMaxWaitTimeMs', (o) => o.idleMaxWaitTimeMs, FETCH_LIMITS.idleMaxWaitTimeMs],
  ['fetchBusyMinBytes', (o) => o.fetchBusyMinBytes, FETCH_LIMITS.fetchBusyMinBytes],
];

/** `value`'s problem as an option `name` of `range`, or undefined when it is fine or unset. */
function rangeProblem(
  name: string,
  value: number | undefined,
  range: WholeNumberRange,
): string | undefined {
  if (value === undefined) return undefined;
  const { minimum, maximum } = range;
  const fits =
    Number.isSafeInteger(value) && value >= minimum && (maximum === undefined || value <= maximum);
  if (fits) return undefined;
  const span = maximum === undefined ? `at least ${minimum}` : `${minimum} to ${maximum}`;
  return `${name} must be an integer, ${span} (got ${String(value)})`;
}

/**
 * Checks `options` in one step: every option out of its range is named, with its range and the
 * value given; otherwise the options come back with every default filled, frozen (the topics
 * too).
 */
export function resolveStageLoopOptions(options: StageLoopOptions): StageLoopOptionsOutcome {
  const problems = RANGES.flatMap(
    ([name, read, range]) => rangeProblem(name, read(options), range) ?? [],
  );
  if (problems.length > 0) return { ok: false, problems: Object.freeze(problems) };
  const resolved: ResolvedStageLoopOptions = {
    ...options,
    topics: Object.freeze([...options.topics]),
    maxBatchMessages: options.maxBatchMessages ?? STAGE_LOOP_DEFAULTS.maxBatchMessages,
    partitionsConcurrently:
      options.partitionsConcurrently ?? STAGE_LOOP_DEFAULTS.partitionsConcurrently,
    keysConcurrently: options.keysConcurrently ?? STAGE_LOOP_DEFAULTS.keysConcurrently,
    commitLingerMs: options.commitLingerMs ?? STAGE_LOOP_DEFAULTS.commitLingerMs,
    retry: options.retry ?? DEFAULT_RETRY_POLICY,
    stopTimeoutMs: options.stopTimeoutMs ?? STAGE_LOOP_DEFAULTS.stopTimeoutMs,
    fromBeginning: options.fromBeginning ?? true,
    heartbeatEveryMs: options.heartbeatEveryMs ?? STAGE_LOOP_DEFAULTS.heartbeatEveryMs,
    metrics: options.metrics ?? {},
    fetchMinBytes: options.fetchMinBytes ?? FETCH_DEFAULTS.minBytes,
    maxWaitTimeMs: options.maxWaitTimeMs ?? FETCH_DEFAULTS.maxWaitMs,
    idleMaxWaitTimeMs: options.idleMaxWaitTimeMs ?? FETCH_DEFAULTS.idleMaxWaitMs,
    fetchBusyMinBytes: options.fetchBusyMinBytes ?? FETCH_DEFAULTS.busyMinBytes,
  };
  return { ok: true, options: Object.freeze(resolved) };
}
