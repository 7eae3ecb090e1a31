/** Polling with a deadline and progress lines, for components that take a while to answer. */
import { setTimeout as delay } from 'node:timers/promises';

/** Where the driver's progress lines go. */
export interface Reporter {
  /** One line of progress, e.g. `kafka: waiting for 127.0.0.1:9092 (20 s of 120 s)`. */
  line(text: string): void;
}

/** What one readiness attempt says: ready, or not yet and why. */
export type Attempt = { readonly ready: true } | { readonly ready: false; readonly why: string };

/** Options of {@link waitUntilReady}. */
export interface WaitOptions {
  /** Give up after this many milliseconds. */
  readonly deadlineMs: number;
  /** Pause between attempts; default 500 ms. */
  readonly intervalMs?: number;
  /** Print a progress line this often; default 10 s. */
  readonly progressEveryMs?: number;
  /** Called before each attempt: a string means "stop waiting, this is why" (e.g. the process died). */
  readonly abandon?: () => string | undefined;
}

/** The outcome of waiting: ready, or the last reason it was not and whether time ran out. */
export type WaitOutcome =
  | { readonly ready: true; readonly elapsedMs: number }
  | { readonly ready: false; readonly why: string; readonly timedOut: boolean };

/** Calls `attempt` until it reports ready, `abandon` speaks, or the deadline passes. */
export async function waitUntilReady(
  what: string,
  attempt: () => Promise<Attempt>,
  reporter: Reporter,
  options: WaitOptions,
): Promise<WaitOutcome> {
  const started = Date.now();
  let nextProgress = started + (options.progressEveryMs ?? 10_000);
  let why = 'no attempt finished';
  while (Date.now() - started < options.deadlineMs) {
    const abandoned = options.abandon?.();
    if (abandoned !== undefined) return { ready: false, why: abandoned, timedOut: false };
    const result = await attempt();
    if (result.ready) return { ready: true, elapsedMs: Date.now() - started };
    why = result.why;
    if (Date.now() >= nextProgress) {
      reporter.line(
        `${what} (${seconds(Date.now() - started)} of ${seconds(options.deadlineMs)}: ${why})`,
      );
      nextProgress += options.progressEveryMs ?? 10_000;
    }
    await delay(options.intervalMs ?? 500);
  }
  return { ready: false, why, timedOut: true };
}

/** Milliseconds as a person reads them: `4.2 s`, `95 s`. */
export function seconds(ms: number): string {
  const s = ms / 1_000;
  return s < 10 ? `${s.toFixed(1)} s` : `${Math.round(s)} s`;
}
