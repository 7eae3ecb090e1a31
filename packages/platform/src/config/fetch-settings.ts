/**
 * How a stage loop's consumer fetches: the defaults, the range each setting may take, and
 * TOOLGATE_FETCH_*, the three a deployment sets for every loop of a process. The ranges are one
 * table, read both by the variables' schemas (a bad variable stops the process at start, named
 * like any other) and by the stage loop's own check of its options, so a value the configuration
 * takes is one the loop takes.
 */
import type { VariableTable } from './variable-spec.js';

/**
 * The stage loop's fetch defaults: a busy stage's fetch waits up to `maxWaitMs` for `minBytes` of
 * records; it is busy while its last fetch brought `busyMinBytes`; an idle stage's fetch long-polls
 * up to `idleMaxWaitMs`. The first three are TOOLGATE_FETCH_*; the idle wait adds no latency.
 */
export const FETCH_DEFAULTS = {
  maxWaitMs: 25,
  minBytes: 32 * 1024,
  busyMinBytes: 2 * 1024,
  idleMaxWaitMs: 500,
} as const;

/**
 * The fetch options of a stage loop; each unset one takes its {@link FETCH_DEFAULTS} value.
 *
 * A fetch of a busy stage is answered once `fetchMinBytes` of records are ready or after
 * `maxWaitTimeMs`, so it handles (and commits) larger chunks: a transaction costs about six
 * broker round trips whatever it carries, and under load a stage that fetched whatever was there
 * spent most of its CPU on transactions of a few messages. A stage is busy while its last fetch
 * brought at least `fetchBusyMinBytes`; otherwise the next fetch waits for the first record, up
 * to `idleMaxWaitTimeMs`: an idle stage long-polls, and under light traffic, or after a quiet
 * spell, a record is not held back. Defaults 32 KiB, 25 ms, 2 KiB and 500 ms: under steady
 * traffic a hop may wait up to 25 ms for more. `fetchMinBytes: 1` takes whatever is there. A
 * process sets the first three from `TOOLGATE_FETCH_*` ({@link fetchOptions}); the ranges are
 * {@link FETCH_LIMITS}. See `BusConsumerOptions.minBytes`.
 */
export interface FetchOptions {
  /** Bytes of records a busy stage's fetch waits for. Default 32 KiB; 1 takes whatever is there. */
  readonly fetchMinBytes?: number;
  /**
   * How long a busy stage's fetch waits for `fetchMinBytes`, in ms. Default 25. At least 1: with
   * every partition paused (a fault being retried) the consumer sleeps this long between fetches.
   */
  readonly maxWaitTimeMs?: number;
  /** How long an idle stage's fetch waits for its first record, in ms. Default 500. */
  readonly idleMaxWaitTimeMs?: number;
  /**
   * Bytes of records (keys and values) a fetch must bring for the next one to wait for
   * `fetchMinBytes`. Default 2 KiB, about three envelopes; 1 makes any record count.
   */
  readonly fetchBusyMinBytes?: number;
}

/** The range of a whole-number setting; no `maximum` means no upper bound. */
export interface WholeNumberRange {
  readonly minimum: number;
  readonly maximum?: number;
}

/**
 * The whole numbers each fetch option may be. A wait of 0 ms would make a stage whose partitions
 * are all paused spin; a fetch that waits for no bytes at all is a fetch of 1.
 */
export const FETCH_LIMITS = {
  maxWaitTimeMs: { minimum: 1, maximum: 10_000 },
  fetchMinBytes: { minimum: 1, maximum: 1_048_576 },
  fetchBusyMinBytes: { minimum: 1, maximum: 1_048_576 },
  idleMaxWaitTimeMs: { minimum: 0 },
} as const satisfies Record<keyof FetchOptions, WholeNumberRange>;

/** TOOLGATE_FETCH_MAX_WAIT_MS, TOOLGATE_FETCH_MIN_BYTES and TOOLGATE_FETCH_BUSY_MIN_BYTES. */
export const FETCH_VARIABLES = {
  FETCH_MAX_WAIT_MS: {
    key: 'fetchMaxWaitMs',
    kind: 'integer',
    default: FETCH_DEFAULTS.maxWaitMs,
    schema: FETCH_LIMITS.maxWaitTimeMs,
    description:
      'How long a busy stage\'s fetch waits for `FETCH_MIN_BYTES` of records, in ms: under steady traffic each hop may wait this long. Lower answers sooner, and can cost CPU in the process and the broker (README, "Tuning: the fetch settings"). At least 1: a stage whose partitions are all paused (a fault being retried) sleeps this long between fetches, and with 0 it would spin.',
  },
  FETCH_MIN_BYTES: {
    key: 'fetchMinBytes',
    kind: 'integer',
    default: FETCH_DEFAULTS.minBytes,
    schema: FETCH_LIMITS.fetchMinBytes,
    description:
      "Bytes of records a busy stage's fetch waits for, at most `FETCH_MAX_WAIT_MS`: larger chunks share one transaction. 1 takes whatever is there.",
  },
  FETCH_BUSY_MIN_BYTES: {
    key: 'fetchBusyMinBytes',
    kind: 'integer',
    default: FETCH_DEFAULTS.busyMinBytes,
    schema: FETCH_LIMITS.fetchBusyMinBytes,
    description: `A stage is busy while its last fetch brought at least this many bytes of records; otherwise its next fetch returns with the first record (a long poll of up to ${FETCH_DEFAULTS.idleMaxWaitMs} ms), so light traffic is not held back.`,
  },
} as const satisfies VariableTable;

/** A loaded configuration's fetch settings (`TOOLGATE_FETCH_*`). */
export interface FetchConfig {
  readonly fetchMaxWaitMs: number;
  readonly fetchMinBytes: number;
  readonly fetchBusyMinBytes: number;
}

/** The stage-loop options of `config`'s fetch settings; every loop of a process passes them. */
export function fetchOptions(
  config: FetchConfig,
): Required<Pick<FetchOptions, 'maxWaitTimeMs' | 'fetchMinBytes' | 'fetchBusyMinBytes'>> {
  return {
    maxWaitTimeMs: config.fetchMaxWaitMs,
    fetchMinBytes: config.fetchMinBytes,
    fetchBusyMinBytes: config.fetchBusyMinBytes,
  };
}
