/**
 * What each gate stage's loop did during the open-loop runs (`--hops`): read from the stages' own
 * `/metrics` before and after each gate run, so a hop's time can be split into handling a chunk
 * and committing its transaction. The parsing and the arithmetic are pure.
 */

/** The stage loop's counters this reads, summed over their label sets. */
const COUNTERS = [
  'toolgate_handle_seconds_sum',
  'toolgate_handle_seconds_count',
  'toolgate_batch_seconds_sum',
  'toolgate_batch_seconds_count',
  'toolgate_transaction_seconds_sum',
  'toolgate_transaction_seconds_count',
] as const;
type Counter = (typeof COUNTERS)[number];

/** The counters of one scrape. */
export type StageCounters = Readonly<Record<Counter, number>>;

/** What the counters moved by over some runs. */
export type MovedCounters = Record<Counter, number>;

/** Reads the counters from Prometheus text; a counter that is absent reads 0. */
export function parseStageCounters(text: string): StageCounters {
  const totals = Object.fromEntries(COUNTERS.map((c) => [c, 0])) as Record<Counter, number>;
  for (const line of text.split('\n')) {
    const match = /^([a-z_]+)(?:\{[^}]*\})? ([0-9.eE+-]+)$/.exec(line);
    if (match === null) continue;
    const name = match[1] as Counter;
    if (COUNTERS.includes(name)) totals[name] += Number(match[2]);
  }
  return totals;
}

/** What the counters moved by between two scrapes, added to `into`. */
export function addDifference(
  into: MovedCounters | undefined,
  before: StageCounters,
  after: StageCounters,
): MovedCounters {
  const sum = into ?? (Object.fromEntries(COUNTERS.map((c) => [c, 0])) as MovedCounters);
  for (const c of COUNTERS) sum[c] += after[c] - before[c];
  return sum;
}

/** One stage's loop over some runs: means in ms, and messages per transaction. */
export interface StageTiming {
  readonly messages: number;
  /** Decode, handle and encode of one message, wall time (Redis round trips included). */
  readonly handleMs: number;
  /** One chunk: handling all its messages and waiting for the transaction that commits it. */
  readonly chunkMs: number;
  /** One transaction, from begin to commit. */
  readonly transactionMs: number;
  readonly messagesPerTransaction: number;
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
  };
}

/** One line per load level and stage. */
export function formatStageTimings(
  timings: Readonly<Record<string, Readonly<Record<string, StageTiming>>>>,
): string[] {
  const ms = (x: number) => (Number.isNaN(x) ? '–' : x.toFixed(1));
  return Object.entries(timings).flatMap(([percent, stages]) =>
    Object.entries(stages).map(
      ([stage, t]) =>
        `stage loop at ${percent} %, gate-${stage}: ${t.messages} messages, ${ms(t.handleMs)} ms ` +
        `each; chunk ${ms(t.chunkMs)} ms; transaction ${ms(t.transactionMs)} ms, ` +
        `${ms(t.messagesPerTransaction)} messages each`,
    ),
  );
}
