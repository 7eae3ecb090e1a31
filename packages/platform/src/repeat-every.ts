/** A job run again and again with a pause between runs, never two at once, until stopped. */

/** A running repetition. */
export interface Repetition {
  /** Stops scheduling and waits for the run in progress, if any. Idempotent. */
  stop(): Promise<void>;
}

/**
 * Runs `job` `intervalMs` after the previous run ended (not a fixed rate, so a slow run never
 * overlaps the next). A failed run is reported to `onError` and the next one runs as usual.
 */
export function repeatEvery(
  intervalMs: number,
  job: () => Promise<unknown>,
  onError: (error: unknown) => void,
): Repetition {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  let stopped = false;
  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      running = job()
        .then(() => undefined, onError)
        .finally(schedule);
    }, intervalMs);
  };
  schedule();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
