/**
 * Waiting on a condition with a deadline that names what it waited for: the demo never sleeps a
 * fixed time to let something happen, it looks again until it has happened or the time is up.
 */
import { setTimeout as sleep } from 'node:timers/promises';

/** Why a wait gave up. */
export class WaitTimeoutError extends Error {
  override readonly name = 'WaitTimeoutError';
}

/**
 * Resolves with the first value other than undefined that `probe` returns, asking every
 * `intervalMs` (default 100 ms).
 *
 * @throws WaitTimeoutError "no <what> within <n> s" once `timeoutMs` has passed; whatever `probe`
 *   throws.
 */
export async function waitUntil<T>(
  probe: () => T | undefined | Promise<T | undefined>,
  what: string,
  timeoutMs: number,
  intervalMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() >= deadline) {
      throw new WaitTimeoutError(`no ${what} within ${Math.round(timeoutMs / 1000)} s`);
    }
    await sleep(intervalMs);
  }
}

/**
 * `work`, or a WaitTimeoutError "<what> took longer than <n> s" after `timeoutMs`; `work` is not
 * cancelled, only no longer waited for.
 */
export async function within<T>(work: Promise<T>, what: string, timeoutMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(new WaitTimeoutError(`${what} took longer than ${Math.round(timeoutMs / 1000)} s`)),
      timeoutMs,
    );
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
