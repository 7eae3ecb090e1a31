/** Awaiting an event with a deadline that names what was awaited (tests never sleep). */

/** `promise`, or a rejection saying `what` did not happen within `ms` milliseconds. */
export async function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** A promise with its resolve function, for "resolve when the handler has seen enough". */
export function signal<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve: (value: T) => void = () => undefined;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/**
 * Polls `check` every `intervalMs` (default 10) until it returns true; rejects naming `what` if
 * that has not happened within `ms`. For states no event announces (a Redis key expiring).
 */
export async function eventually(
  ms: number,
  what: string,
  check: () => Promise<boolean>,
  intervalMs = 10,
): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/**
 * Resolves once every promise callback already queued, and every one those queue in turn, has
 * run (the event loop's next turn). For asserting that settling a promise led to nothing: no
 * timer is involved, so nothing here depends on how fast the machine is.
 */
export function promiseCallbacksRun(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
