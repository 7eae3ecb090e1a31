/**
 * What each gate stage's loop did during the open-loop runs (`--hops`): read from the stages' own
 * `/metrics` before and after each gate run, so a hop's time can be split into handling a chunk
 * and committing its transaction, and the waits for Redis and for the event loop shown beside
 * them. The parsing and the arithmetic are pure.
 */

/** The stage loop's counters this reads, summed over their label sets. */
const COUNTERS = [
  'toolgate_handle_seconds_sum',
  'toolgate_handle_seconds_count',
  'toolgate_batch_seconds_sum',
  'toolgate_batch_seconds_count',
  'toolgate_transaction_seconds_sum',
  'toolgate_transaction_seconds_count',
  'toolgate_transaction_partitions_total',
  'toolgate_store_seconds_sum',
  'toolgate_store_seconds_count',
] as const;

/**
 * prom-client's event-loop delay, p99 since the scrape before (each scrape restarts it): the
 * scrape after a run reads that run's. Sampled every 10 ms, so an idle loop reads about 10 ms.
 */
const EVENT_LOOP_P99 = 'nodejs_eventloop_lag_p99_seconds';

type Series = (typeof COUNTERS)[number] | typeof EVENT_LOOP_P99;
const SERIES: readonly Series[] = [...COUNTERS, EVENT_LOOP_P99];

/** The counters (and the event loop's p99) of one scrape. */
export type StageCounters = Readonly<Record<Series, number>>;

/** What the counters moved by over some runs; for the event loop, its largest p99 after one. */
export type MovedCounters = Record<Series, number>;

const zeros = () => Object.fromEntries(SERIES.map((c) => [c, 0])) as Record<Series, number>;

/** Reads the series from Prometheus text, summed over label sets; one that is absent reads 0. */
export function parseStageCounters(text: string): StageCounters {
  const totals = zeros();
  for (const line of text.split('\n')) {
    const match = /^([a-z0-9_]+)(?:\{[^}]*\})? ([0-9.eE+-]+)$/.exec(line);
    if (match === null) continue;
    const name = match[1] as Series;
    if (SERIES.includes(name)) totals[name] += Number(match[2]);
  }
  return totals;
}

/** What the counters moved by between two scrapes, added to `into`. */
export function addDifference(
  into: MovedCounters | undefined,
  before: StageCounters,
  after: StageCounters,
): MovedCounters {
  const sum = into ?? zeros();
  for (const c of COUNTERS) sum[c] += after[c] - before[c];
  sum[EVENT_LOOP_P99] = Math.max(sum[EVENT_LOOP_P99], after[EVENT_LOOP_P99]);
  return sum;
}

/** One stage's loop over some runs: means in ms, and messages and partitions per transaction. */
export interface StageTiming {
  readonly messages: number;
  /** Decode, handle and encode of one message, wall time (Redis round trips included). */
  readonly handleMs: number;
  /** One chunk: handling all its messages and waiting for the transaction that commits it. */
  readonly chunkMs: number;
  /** One transaction, from begin to commit. */
  readonly transactionMs: number;
  readonly messagesPerTransaction: number;
  /** Partitions a committed transaction wrote to (each gets a commit marker). */
  readonly partitionsPerTransaction: number;
  /** Redis calls per message (the process's, shared by its stages). */
  readonly storeCallsPerMessage: number;
  /** One Redis call as the process waited for it. */
  readonly storeMs: number;
  /** The event loop's delay, the largest p99 of the runs. */
  readonly eventLoopP99Ms: number;
}

/** The means of what the counters moved by. */
export function timingOf(moved: StageCounters): StageTiming {
  const per = (sum: number, count: number) => (count > 0 ? (sum * 1000) / count : Number.NaN);
  const messages = moved.toolgate_handle_seconds_count;
  const transactions = moved.toolgate_transaction_seconds_count;
  return {
    messages,
    handleMs: per(moved.toolgate_handle_seconds_sum, messages),
    chunkMs: per(moved.toolgate_batch_seconds_sum, moved.toolgate_batch_seconds_count),
    transactionMs: per(moved.toolgate_transaction_seconds_sum, transactions),
    messagesPerTransaction: transactions > 0 ? messages / transactions : Number.NaN,
    partitionsPerTransaction:
      transactions > 0 ? moved.toolgate_transaction_partitions_total / transactions : Number.NaN,
    storeCallsPerMessage: messages > 0 ? moved.toolgate_store_seconds_count / messages : Number.NaN,
    storeMs: per(moved.toolgate_store_seconds_sum, moved.toolgate_store_seconds_count),
    eventLoopP99Ms: moved[EVENT_LOOP_P99] > 0 ? moved[EVENT_LOOP_P99] * 1000 : Number.NaN,
  };
}

/** One line per load level (or phase, as `label` names it) and stage. */
export function formatStageTimings(
  timings: Readonly<Record<string, Readonly<Record<string, StageTiming>>>>,
  label: (key: string) => string = (percent) => `at ${percent} %`,
): string[] {
  const ms = (x: number) => (Number.isNaN(x) ? '–' : x.toFixed(1));
  return Object.entries(timings).flatMap(([percent, stages]) =>
    Object.entries(stages).map(
      ([stage, t]) =>
        `stage loop ${label(percent)}, gate-${stage}: ${t.messages} messages, ${ms(t.handleMs)} ms ` +
        `each; chunk ${ms(t.chunkMs)} ms; transaction ${ms(t.transactionMs)} ms, ` +
        `${ms(t.messagesPerTransaction)} messages to ${ms(t.partitionsPerTransaction)} ` +
        `partitions each; Redis ${ms(t.storeCallsPerMessage)} ` +
        `calls a message, ${ms(t.storeMs)} ms each; event loop delay p99 up to ` +
        `${ms(t.eventLoopP99Ms)} ms`,
    ),
  );
}
