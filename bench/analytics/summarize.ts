/**
 * What one load phase of `npm run bench:analytics` showed, from its samples: the rate offered and
 * written, what analytics consumed, the consumer group's lag while loaded, at the load's end and
 * after, how long the lag took to return to zero, and the cores analytics used. Pure.
 */

/** How long after the load's end the lag must be back to zero: one minute window. */
export const DRAIN_LIMIT_MS = 60_000;

/** One reading, taken every 500 ms during and after a phase's load. */
export interface LagSample {
  /** ms since the epoch. */
  readonly atMs: number;
  /**
   * Records the group has not committed, summed over the audit topic's partitions: the high
   * watermark minus the committed offset (transaction markers included, as Kafka counts them).
   */
  readonly lag: number;
  /** `toolgate_analytics_events_consumed_total` of the analytics process; absent if unread. */
  readonly consumed?: number;
  /** CPU seconds analytics has used since it started; absent if unread. */
  readonly cpuSeconds?: number;
}

/** What the phase was asked to do and what it did, besides its samples. */
export interface PhaseFacts {
  readonly name: string;
  /** Events/s the writer was asked for. */
  readonly targetRate: number;
  readonly loadStartMs: number;
  readonly loadEndMs: number;
  /** Events the writer committed. */
  readonly written: number;
  readonly transactions: number;
  /** `consumed` (the counter) when the load started. */
  readonly consumedAtStart: number;
  readonly samples: readonly LagSample[];
}

/** The figures of one phase. Rates in events/s, durations in ms, lag in records. */
export interface PhaseSummary {
  readonly name: string;
  readonly targetRate: number;
  readonly writtenRate: number;
  readonly written: number;
  readonly transactions: number;
  /** Events consumed per second while the load ran; null when analytics' counter was unread. */
  readonly consumedRateLoaded: number | null;
  /** Events consumed per second from the load's start until the lag was back to zero. */
  readonly consumedRateOverall: number | null;
  readonly maxLag: number;
  /** Lag of the last sample taken at or before the load's end. */
  readonly lagAtStop: number;
  /** From the load's end to the first sample with no event left to consume; null if none was. */
  readonly drainMs: number | null;
  /** True when {@link drainMs} is at most {@link DRAIN_LIMIT_MS}. */
  readonly drained: boolean;
  /** Analytics' mean CPU cores from the load's start to the drain (or the last sample). */
  readonly cpuCores: number | null;
  /** Its largest CPU cores over any 5 s of the phase. */
  readonly peakCpuCores: number | null;
}

/** True when the sample shows no lag and every event the phase wrote consumed. */
export function caughtUp(facts: PhaseFacts, s: LagSample): boolean {
  const allConsumed =
    s.consumed === undefined || s.consumed - facts.consumedAtStart >= facts.written;
  return allConsumed && s.lag === 0;
}

/** Summarises one phase; see {@link PhaseSummary}. */
export function summarizePhase(facts: PhaseFacts): PhaseSummary {
  const loadSeconds = (facts.loadEndMs - facts.loadStartMs) / 1000;
  if (!(loadSeconds > 0)) throw new RangeError(`phase ${facts.name}: the load never ran`);
  const samples = [...facts.samples].sort((a, b) => a.atMs - b.atMs);
  const duringLoad = samples.filter((s) => s.atMs <= facts.loadEndMs);
  const atStop = duringLoad.at(-1);
  const done = samples.find((s) => s.atMs >= facts.loadEndMs && caughtUp(facts, s));
  const drainMs = done === undefined ? null : Math.max(0, done.atMs - facts.loadEndMs);
  const consumedAt = (s: LagSample | undefined) =>
    s?.consumed === undefined ? null : s.consumed - facts.consumedAtStart;
  const loadedConsumed = consumedAt(atStop);
  const overall = consumedAt(done);
  return {
    name: facts.name,
    targetRate: facts.targetRate,
    writtenRate: round(facts.written / loadSeconds),
    written: facts.written,
    transactions: facts.transactions,
    consumedRateLoaded: loadedConsumed === null ? null : round(loadedConsumed / loadSeconds),
    consumedRateOverall:
      overall === null || done === undefined
        ? null
        : round(overall / ((done.atMs - facts.loadStartMs) / 1000)),
    maxLag: samples.reduce((max, s) => Math.max(max, s.lag), 0),
    lagAtStop: atStop?.lag ?? 0,
    drainMs,
    drained: drainMs !== null && drainMs <= DRAIN_LIMIT_MS,
    cpuCores: cpuBetween(samples, facts.loadStartMs, done?.atMs ?? samples.at(-1)?.atMs),
    peakCpuCores: peakCpu(samples, 5_000),
  };
}

/** Mean cores between the first sample at or after `fromMs` and the last at or before `toMs`. */
function cpuBetween(
  samples: readonly LagSample[],
  fromMs: number,
  toMs: number | undefined,
): number | null {
  if (toMs === undefined) return null;
  const timed = samples.filter((s) => s.cpuSeconds !== undefined);
  const first = timed.find((s) => s.atMs >= fromMs);
  const last = timed.filter((s) => s.atMs <= toMs).at(-1);
  return first === undefined || last === undefined ? null : coresOf(first, last);
}

/** The largest mean cores over a span of at least `spanMs` between two samples. */
function peakCpu(samples: readonly LagSample[], spanMs: number): number | null {
  const timed = samples.filter((s) => s.cpuSeconds !== undefined);
  let peak: number | null = null;
  let j = 0;
  for (const last of timed) {
    while (j + 1 < timed.length && last.atMs - (timed[j + 1]?.atMs ?? 0) >= spanMs) j += 1;
    const first = timed[j];
    if (first === undefined || last.atMs - first.atMs < spanMs) continue;
    const cores = coresOf(first, last);
    if (cores !== null) peak = Math.max(peak ?? 0, cores);
  }
  return peak;
}

function coresOf(first: LagSample, last: LagSample): number | null {
  const wallSeconds = (last.atMs - first.atMs) / 1000;
  if (wallSeconds <= 0 || first.cpuSeconds === undefined || last.cpuSeconds === undefined)
    return null;
  return round((last.cpuSeconds - first.cpuSeconds) / wallSeconds, 2);
}

function round(x: number, digits = 1): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

/** The total of the series `name` in Prometheus text, over its label sets; undefined if absent. */
export function seriesTotal(text: string, name: string): number | undefined {
  let total: number | undefined;
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z0-9_:]+)(?:\{[^}]*\})? ([0-9.eE+-]+)$/.exec(line);
    if (match?.[1] === name) total = (total ?? 0) + Number(match[2]);
  }
  return total;
}

/** A short table of the phases, one row each, and the verdict of the first. */
export function formatPhases(phases: readonly PhaseSummary[]): string[] {
  const header = [
    'phase',
    'target/s',
    'written/s',
    'consumed/s (load)',
    'max lag',
    'lag at stop',
    'drain',
    'cores (mean/peak 5 s)',
  ];
  const rows = phases.map((p) => [
    p.name,
    String(p.targetRate),
    String(p.writtenRate),
    p.consumedRateLoaded === null ? '?' : String(p.consumedRateLoaded),
    String(p.maxLag),
    String(p.lagAtStop),
    p.drainMs === null ? 'never' : `${(p.drainMs / 1000).toFixed(1)} s`,
    `${p.cpuCores?.toFixed(2) ?? '?'} / ${p.peakCpuCores?.toFixed(2) ?? '?'}`,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]?.length ?? 0)));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)];
}
