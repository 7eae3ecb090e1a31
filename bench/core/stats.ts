/** Summaries of repeated measurements: medians with their spread, and latency percentiles. */

/** The median of repeated figures and how far the rounds strayed from it. */
export interface Spread {
  readonly median: number;
  readonly min: number;
  readonly max: number;
  /** (max − min) / median, as a fraction; 0 for one figure. */
  readonly relative: number;
}

/** The median (mean of the two middle values for an even count); NaN for no values. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  const upper = sorted[mid] ?? Number.NaN;
  return sorted.length % 2 === 1 ? upper : ((sorted[mid - 1] ?? Number.NaN) + upper) / 2;
}

/** Median, extremes and relative spread of `values`; all NaN when there are none. */
export function spreadOf(values: readonly number[]): Spread {
  if (values.length === 0) {
    return { median: Number.NaN, min: Number.NaN, max: Number.NaN, relative: Number.NaN };
  }
  const m = median(values);
  const min = Math.min(...values);
  const max = Math.max(...values);
  return { median: m, min, max, relative: values.length > 1 ? (max - min) / m : 0 };
}

/**
 * The `p`-th percentile (0–100) of `sorted` (ascending), nearest-rank: the smallest recorded value
 * with at least p% of the values at or below it, so every figure was actually observed.
 */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1] ?? Number.NaN;
}

/** Latency percentiles, in the unit the samples were recorded in. */
export interface Percentiles {
  readonly count: number;
  readonly p50: number;
  readonly p90: number;
  readonly p99: number;
  readonly p999: number;
  readonly max: number;
}

/** Percentiles of unsorted samples (sorted here on a copy). */
export function percentilesOf(samples: ArrayLike<number>): Percentiles {
  const sorted = Float64Array.from(samples).sort();
  return {
    count: sorted.length,
    p50: percentile(sorted, 50),
    p90: percentile(sorted, 90),
    p99: percentile(sorted, 99),
    p999: percentile(sorted, 99.9),
    max: sorted.length === 0 ? Number.NaN : (sorted[sorted.length - 1] ?? Number.NaN),
  };
}
