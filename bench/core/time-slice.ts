/** The timing loop every measurement shares: whole passes over the mix until a time budget is spent. */

/** One pass over the mix; returns a count so that the work cannot be optimised away. */
export type Pass = () => number | Promise<number>;

/** What one slice measured. */
export interface SliceTiming {
  /** Whole passes completed (at least one). */
  readonly passes: number;
  /** Wall-clock nanoseconds the passes took. */
  readonly ns: number;
  /**
   * CPU microseconds the process spent meanwhile (user + system, all threads: the JIT compiler,
   * GC helpers and the libuv pool that runs WebCrypto work for session checks included).
   */
  readonly cpuUs: number;
  /** Sum of the passes' counts, kept so that nothing is dead code. */
  readonly sink: number;
}

/**
 * Runs `pass` until at least `budgetMs` of wall-clock time has passed (and at least once), and
 * reads both clocks: wall-clock time is what a caller waits (GC and any time the process is
 * descheduled on a busy machine included); CPU time is what the work costs a core, and is far less
 * disturbed by other processes.
 */
export async function timeSlice(pass: Pass, budgetMs: number): Promise<SliceTiming> {
  const budget = BigInt(Math.round(budgetMs * 1e6));
  const cpu = process.cpuUsage();
  const start = process.hrtime.bigint();
  let elapsed = 0n;
  let passes = 0;
  let sink = 0;
  while (passes === 0 || elapsed < budget) {
    sink += await pass();
    passes += 1;
    elapsed = process.hrtime.bigint() - start;
  }
  const used = process.cpuUsage(cpu);
  return { passes, ns: Number(elapsed), cpuUs: used.user + used.system, sink };
}

/** Nanoseconds one `process.hrtime.bigint()` reading costs here, to judge per-call timing. */
export function timerCostNs(): number {
  const n = 100_000;
  let last = 0n;
  const start = process.hrtime.bigint();
  for (let i = 0; i < n; i += 1) last = process.hrtime.bigint();
  return Number(last - start) / n;
}
