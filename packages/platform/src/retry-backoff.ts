/** Capped exponential backoff with jitter, for pausing a partition after a retriable fault. */

/** How long to wait before delivering a failed message again. */
export interface RetryPolicy {
  /** Delay ceiling of the first retry, in milliseconds. */
  readonly initialMs: number;
  /** Largest delay ceiling, in milliseconds. */
  readonly maxMs: number;
}

/** 200 ms doubling up to 10 s: a Redis restart is seen within seconds, an outage is not hammered. */
export const DEFAULT_RETRY_POLICY: RetryPolicy = Object.freeze({ initialMs: 200, maxMs: 10_000 });

/**
 * The delay before retry number `attempt` (1 for the first), in milliseconds: the ceiling
 * `min(maxMs, initialMs · 2^(attempt−1))`, of which the upper half is jittered by `random` (a
 * number in [0, 1)) so instances that failed together do not retry together. Always at least half
 * the ceiling, never above it.
 */
export function backoffDelay(
  attempt: number,
  policy: RetryPolicy,
  random: () => number = Math.random,
): number {
  const exponent = Math.min(Math.max(attempt, 1) - 1, 30);
  const ceiling = Math.min(policy.maxMs, policy.initialMs * 2 ** exponent);
  return Math.round(ceiling / 2 + (ceiling / 2) * random());
}
