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

/** Options of {@link retryWhileRetriable}. */
export interface RetryWhileOptions {
  /** Give up (rethrow the last fault) once this much time has passed, in ms. */
  readonly deadlineMs: number;
  readonly policy?: RetryPolicy;
  /** Told before each wait: which attempt failed, why, and how long until the next. */
  readonly onRetry?: (attempt: number, error: unknown, delayMs: number) => void;
  /** Whether an error is worth another attempt. */
  readonly retriable: (error: unknown) => boolean;
  /** Default `setTimeout`; tests pass a fake. */
  readonly sleep?: (ms: number) => Promise<void>;
  readonly now?: () => number;
}

/**
 * Runs `work` until it succeeds, retrying errors `retriable` accepts with capped exponential
 * backoff, for at most `deadlineMs`; other errors, and the last one past the deadline, are thrown.
 * For start-up, where a busy registry or broker should delay a process, not fail it.
 */
export async function retryWhileRetriable<T>(
  work: () => Promise<T>,
  options: RetryWhileOptions,
): Promise<T> {
  const now = options.now ?? Date.now;
  const sleep =
    options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const policy = options.policy ?? DEFAULT_RETRY_POLICY;
  const deadline = now() + options.deadlineMs;
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await work();
    } catch (error) {
      const delay = backoffDelay(attempt, policy);
      if (!options.retriable(error) || now() + delay > deadline) throw error;
      options.onRetry?.(attempt, error, delay);
      await sleep(delay);
    }
  }
}
