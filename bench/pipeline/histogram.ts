/**
 * A latency histogram with log-spaced buckets (1 % wide), as HdrHistogram keeps them: constant
 * memory however many samples, percentiles within 1 % of the recorded value, exact count and max.
 */

/** Smallest value kept in its own bucket, in ms; anything below falls in the first bucket. */
const FLOOR_MS = 0.01;
/** Relative width of a bucket. */
const GROWTH = 1.01;
/** Buckets up to about 10 minutes; larger values land in the last one (max stays exact). */
const BUCKETS = Math.ceil(Math.log(600_000 / FLOOR_MS) / Math.log(GROWTH)) + 1;

/** Latency figures in ms. */
export interface LatencySummary {
  readonly count: number;
  readonly p50: number;
  readonly p99: number;
  readonly p999: number;
  readonly max: number;
}

/** Samples in ms, bucketed. */
export interface Histogram {
  /** Adds one sample (ms, ≥ 0; a negative or non-finite sample is a bug and throws). */
  record(ms: number): void;
  /** Number of samples. */
  count(): number;
  /**
   * The p-th percentile (0–100), nearest rank: the upper edge of the bucket holding the sample
   * of that rank, capped at the exact max. NaN when empty.
   */
  percentile(p: number): number;
  /** The largest sample; NaN when empty. */
  max(): number;
  /** p50, p99, p99.9 and max. */
  summary(): LatencySummary;
  /** Adds every sample of `other`, as if each had been recorded here. */
  add(other: Histogram): void;
  /** The samples per bucket, for {@link Histogram.add}. */
  bucketCounts(): Readonly<Float64Array>;
}

function bucketOf(ms: number): number {
  if (ms <= FLOOR_MS) return 0;
  return Math.min(BUCKETS - 1, Math.ceil(Math.log(ms / FLOOR_MS) / Math.log(GROWTH)));
}

function upperEdge(bucket: number): number {
  return FLOOR_MS * GROWTH ** bucket;
}

/** One histogram holding the samples of all of `histograms`. */
export function mergeHistograms(histograms: readonly Histogram[]): Histogram {
  const merged = createHistogram();
  for (const h of histograms) merged.add(h);
  return merged;
}

/** An empty histogram. */
export function createHistogram(): Histogram {
  const counts = new Float64Array(BUCKETS);
  let total = 0;
  let largest = Number.NaN;
  const percentile = (p: number): number => {
    if (total === 0) return Number.NaN;
    const rank = Math.min(total, Math.max(1, Math.ceil((p / 100) * total)));
    let seen = 0;
    for (let b = 0; b < BUCKETS; b += 1) {
      seen += counts[b] ?? 0;
      if (seen >= rank) return Math.min(upperEdge(b), largest);
    }
    return largest;
  };
  return {
    record(ms) {
      if (!Number.isFinite(ms) || ms < 0) throw new RangeError(`latency must be ≥ 0 ms, got ${ms}`);
      counts[bucketOf(ms)] = (counts[bucketOf(ms)] ?? 0) + 1;
      total += 1;
      largest = Number.isNaN(largest) ? ms : Math.max(largest, ms);
    },
    count: () => total,
    add(other) {
      const theirs = other.bucketCounts();
      for (let b = 0; b < BUCKETS; b += 1) counts[b] = (counts[b] ?? 0) + (theirs[b] ?? 0);
      total += other.count();
      const max = other.max();
      if (!Number.isNaN(max)) largest = Number.isNaN(largest) ? max : Math.max(largest, max);
    },
    bucketCounts: () => counts,
    percentile,
    max: () => largest,
    summary: () => ({
      count: total,
      p50: percentile(50),
      p99: percentile(99),
      p999: percentile(99.9),
      max: largest,
    }),
  };
}
