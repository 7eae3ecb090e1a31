/**
 * Bounds a label's values to the busiest few. Tenants are few and known, but tool names reach the
 * audit topic from proposals the schema rung refused (`unknown_tool`), so a model, or someone
 * driving one, can invent as many as it likes: every distinct value a series label takes is a
 * series Prometheus keeps. Pure and in memory: volumes are estimated with the Space-Saving
 * algorithm (Metwally, Agrawal, El Abbadi 2005) over a bounded number of tracked values, so
 * memory stays bounded however many distinct values arrive.
 */

/** The label every value outside the kept ones is counted under. */
export const OTHER_LABEL = 'other';

/** The label of an absent value (an event without a tenant or a tool). */
export const NONE_LABEL = 'none';

/** Default number of values kept as labels. */
export const DEFAULT_TOP_LABELS = 20;

/** Longest value kept as a label, in characters; longer ones are counted under `other`. */
export const MAX_LABEL_VALUE_CHARS = 128;

/** Options of {@link createTopLabels}. */
export interface TopLabelsOptions {
  /** Values kept as labels, at most; default {@link DEFAULT_TOP_LABELS}. At least 1. */
  readonly limit?: number;
  /** Values whose volume is estimated; default 10 × `limit`. At least `limit` + 1. */
  readonly tracked?: number;
  /**
   * A value displaces the least busy kept value only when its guaranteed volume is at least this
   * many times that value's, so two values of similar volume do not take turns; default 2, ≥ 1.
   */
  readonly hysteresis?: number;
}

/** What {@link TopLabels.observe} decided for one value. */
export interface TopLabel {
  /** The value itself when kept, else {@link OTHER_LABEL}. */
  readonly label: string;
  /** A value this observation displaced: its series should be removed. */
  readonly evicted?: string;
}

/** The busiest values of one label. */
export interface TopLabels {
  /** Counts `weight` (default 1) events of `value`; says which label they are counted under. */
  observe(value: string, weight?: number): TopLabel;
  /** The values kept as labels, busiest first (ties by value). */
  kept(): readonly string[];
}

interface Tracked {
  /** Estimated volume: never below the true one. */
  count: number;
  /** How much of `count` may belong to values this entry displaced. */
  error: number;
}

/**
 * A fresh bound for one label.
 *
 * @throws RangeError when an option is out of range.
 */
export function createTopLabels(options: TopLabelsOptions = {}): TopLabels {
  const { limit, tracked: capacity, hysteresis } = checkedOptions(options);
  const tracked = new Map<string, Tracked>();
  const kept = new Set<string>();

  const track = (value: string, weight: number): Tracked => {
    const known = tracked.get(value);
    if (known !== undefined) {
      known.count += weight;
      return known;
    }
    // Space-Saving: a newcomer replaces the least counted entry that is not a kept label and
    // inherits its count as possible error, so estimates never fall below the truth.
    const least = tracked.size < capacity ? undefined : leastOf(tracked, (v) => !kept.has(v));
    if (least !== undefined) tracked.delete(least[0]);
    const floor = least?.[1].count ?? 0;
    const entry = { count: floor + weight, error: floor };
    tracked.set(value, entry);
    return entry;
  };

  const admit = (value: string, entry: Tracked): TopLabel => {
    if (kept.size < limit) {
      kept.add(value);
      return { label: value };
    }
    // Every tracked count is at least 1: a newcomer's guaranteed volume below the hysteresis
    // cannot displace anything, and a flood of distinct values costs no scan of the kept ones.
    if (entry.count - entry.error < hysteresis) return { label: OTHER_LABEL };
    const weakest = leastOf(tracked, (v) => kept.has(v));
    if (weakest === undefined || entry.count - entry.error < hysteresis * weakest[1].count) {
      return { label: OTHER_LABEL };
    }
    kept.delete(weakest[0]);
    kept.add(value);
    return { label: value, evicted: weakest[0] };
  };

  return {
    observe: (value, weight = 1) => {
      if (!Number.isSafeInteger(weight) || weight < 0) {
        throw new RangeError(`weight must be a whole number of at least 0, got ${weight}`);
      }
      if (!labelable(value)) return { label: OTHER_LABEL };
      if (weight === 0) return { label: kept.has(value) ? value : OTHER_LABEL };
      const entry = track(value, weight);
      return kept.has(value) ? { label: value } : admit(value, entry);
    },
    kept: () =>
      [...kept].sort(
        (a, b) => (tracked.get(b)?.count ?? 0) - (tracked.get(a)?.count ?? 0) || compare(a, b),
      ),
  };
}

/** Reserved words and overlong values never become labels of their own. */
function labelable(value: string): boolean {
  return (
    value !== OTHER_LABEL &&
    value !== NONE_LABEL &&
    value !== '' &&
    value.length <= MAX_LABEL_VALUE_CHARS
  );
}

/** The entry with the least count among those `eligible`, ties broken by the greatest value. */
function leastOf(
  tracked: ReadonlyMap<string, Tracked>,
  eligible: (value: string) => boolean,
): [string, Tracked] | undefined {
  let least: [string, Tracked] | undefined;
  for (const [value, entry] of tracked) {
    if (!eligible(value)) continue;
    if (
      least === undefined ||
      entry.count < least[1].count ||
      (entry.count === least[1].count && compare(value, least[0]) > 0)
    ) {
      least = [value, entry];
    }
  }
  return least;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function checkedOptions(options: TopLabelsOptions) {
  const limit = options.limit ?? DEFAULT_TOP_LABELS;
  const tracked = options.tracked ?? 10 * limit;
  const hysteresis = options.hysteresis ?? 2;
  if (!Number.isInteger(limit) || limit < 1) {
    throw new RangeError(`limit must be an integer of at least 1, got ${limit}`);
  }
  if (!Number.isInteger(tracked) || tracked <= limit) {
    throw new RangeError(`tracked must be an integer above limit (${limit}), got ${tracked}`);
  }
  if (!Number.isFinite(hysteresis) || hysteresis < 1) {
    throw new RangeError(`hysteresis must be a number of at least 1, got ${hysteresis}`);
  }
  return { limit, tracked, hysteresis };
}
