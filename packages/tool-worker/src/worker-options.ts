/**
 * The numeric options of a tool worker, checked before it connects: a value out of range would
 * otherwise surface later, on a command, as a result too large for one Kafka record, a ledger that
 * forgets a key while Kafka can still redeliver its command, a lease too short to outlive a
 * pause, or a batch size or grace the loop cannot use.
 */

/**
 * The largest `maxOutputBytes` a worker takes: 512 KiB of output JSON. With its ids and error
 * text a result record then stays well inside one produce request (1,000,000 bytes of records);
 * a larger output could not be published, after the tool had already run. The gate shows
 * the model at most `resultBytes` (at most 128 KiB) of it in any case.
 */
export const MAX_OUTPUT_BYTES_CEILING = 512 * 1024;

/** The shortest ledger entry life a worker takes, in seconds: 24 h (DESIGN §5). */
export const MIN_LEDGER_TTL_SECONDS = 24 * 60 * 60;

/**
 * The range of `leaseMs`, in ms: from 1 s (a renewal every 333 ms) to 1 h. Longer leases only delay
 * the takeover of a command whose worker died; shorter ones risk losing the lease to a pause of
 * the process (a long garbage collection) and aborting a healthy handler.
 */
export const LEASE_MS_RANGE = { min: 1_000, max: 60 * 60 * 1_000 } as const;

/** The options {@link workerOptionProblems} checks; each may be absent (its default applies). */
export interface WorkerNumericOptions {
  readonly maxOutputBytes?: number | undefined;
  readonly maxBatchMessages?: number | undefined;
  readonly abortGraceMs?: number | undefined;
  readonly ledgerTtlSeconds?: number | undefined;
  readonly leaseMs?: number | undefined;
}

/** Every numeric option of `options` out of its range, named with the range; empty if none. */
export function workerOptionProblems(options: WorkerNumericOptions): string[] {
  const rules: readonly [keyof WorkerNumericOptions, number, number][] = [
    ['maxOutputBytes', 1, MAX_OUTPUT_BYTES_CEILING],
    ['maxBatchMessages', 1, Number.MAX_SAFE_INTEGER],
    ['abortGraceMs', 0, Number.MAX_SAFE_INTEGER],
    ['ledgerTtlSeconds', MIN_LEDGER_TTL_SECONDS, Number.MAX_SAFE_INTEGER],
    ['leaseMs', LEASE_MS_RANGE.min, LEASE_MS_RANGE.max],
  ];
  const problems: string[] = [];
  for (const [name, min, max] of rules) {
    const value = options[name];
    if (value === undefined) continue;
    if (!Number.isSafeInteger(value) || value < min || value > max) {
      const range = max === Number.MAX_SAFE_INTEGER ? `at least ${min}` : `${min} to ${max}`;
      problems.push(`${name} must be an integer, ${range} (got ${String(value)})`);
    }
  }
  return problems;
}
