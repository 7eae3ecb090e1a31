/**
 * Runs a handler with an AbortSignal that fires at the command's deadline (or when another
 * signal the caller gives, a lost lease, fires). A handler that honours
 * the signal is reported as aborted; one that ignores it is given a short grace to finish and is
 * then left behind (its eventual answer is ignored), so one stuck handler cannot hold its
 * partition forever.
 */

/** How a run ended. */
export type RunEnd<T> =
  /** The handler answered; `aborted` says whether the deadline had fired by then. */
  | { readonly kind: 'answered'; readonly value: T; readonly aborted: boolean }
  /** The handler threw (or rejected). */
  | { readonly kind: 'threw'; readonly error: unknown; readonly aborted: boolean }
  /** The deadline fired and the handler did not settle within the grace. */
  | { readonly kind: 'abandoned' };

/** Options of {@link runWithDeadline}. */
export interface DeadlineOptions {
  /** Milliseconds until the deadline; 0 or less starts the handler with the signal aborted. */
  readonly msLeft: number;
  /** How long an aborted handler may take to settle before it is abandoned, in ms. */
  readonly graceMs: number;
  /** Another reason to stop (a lost lease): aborts the handler's signal with its own reason. */
  readonly stop?: AbortSignal;
}

/** setTimeout's largest delay (about 24.8 days); a later deadline fires at this bound. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** The reason the signal carries when the deadline fires. */
export class DeadlineExceeded extends Error {
  constructor() {
    super('the command deadline passed');
    this.name = 'DeadlineExceeded';
  }
}

/** Runs `work` with a signal aborted after `msLeft`; never rejects. */
export async function runWithDeadline<T>(
  work: (signal: AbortSignal) => Promise<T>,
  options: DeadlineOptions,
): Promise<RunEnd<T>> {
  const controller = new AbortController();
  const { signal } = controller;
  const timers: NodeJS.Timeout[] = [];
  const after = (ms: number, fn: () => void) => timers.push(setTimeout(fn, clamp(ms)));
  const abandoned = new Promise<RunEnd<T>>((resolve) => {
    signal.addEventListener(
      'abort',
      () => after(options.graceMs, () => resolve({ kind: 'abandoned' })),
      {
        once: true,
      },
    );
  });
  const abort = () => controller.abort(new DeadlineExceeded());
  if (options.msLeft <= 0) abort();
  else after(options.msLeft, abort);
  const stop = () => controller.abort(options.stop?.reason);
  if (options.stop?.aborted === true) stop();
  options.stop?.addEventListener('abort', stop, { once: true });
  const settled = invoke(work, signal).then(
    (value): RunEnd<T> => ({ kind: 'answered', value, aborted: signal.aborted }),
    (error: unknown): RunEnd<T> => ({ kind: 'threw', error, aborted: signal.aborted }),
  );
  try {
    return await Promise.race([settled, abandoned]);
  } finally {
    for (const timer of timers) clearTimeout(timer);
    options.stop?.removeEventListener('abort', stop);
  }
}

/** Calls `work`, turning a synchronous throw into a rejection. */
function invoke<T>(work: (signal: AbortSignal) => Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve) => resolve(work(signal)));
}

function clamp(ms: number): number {
  return Math.min(Math.max(0, ms), MAX_TIMER_MS);
}
