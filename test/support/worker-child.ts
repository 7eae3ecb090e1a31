/**
 * The life of a tool worker run as a test's child process: it says `ready` on stdout once the
 * worker consumes, exits 1 saying why if the worker stops on its own (rather than leave the test
 * waiting for a kill that cannot come), and stops the worker, then closes the rest, on SIGTERM.
 */

/** For `startToolWorker`'s `onCrash`. */
export function exitOnCrash(error: Error): void {
  process.stderr.write(`tool worker child stopped on its own: ${error.stack ?? error.message}\n`);
  process.exit(1);
}

/** Announces `ready` once `worker` is, and stops it, then `closeRest()`, on SIGTERM. */
export function runAsChild(
  worker: { ready(): boolean; stop(): Promise<void> },
  closeRest: () => Promise<unknown>,
): void {
  const announce = setInterval(() => {
    if (!worker.ready()) return;
    clearInterval(announce);
    process.stdout.write('ready\n');
  }, 20);
  process.once('SIGTERM', () => {
    clearInterval(announce);
    void worker
      .stop()
      .then(closeRest)
      .then(() => process.exit(0));
  });
}
