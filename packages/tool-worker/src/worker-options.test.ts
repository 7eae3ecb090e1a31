import { describe, expect, it } from 'vitest';
import {
  LEASE_MS_RANGE,
  MAX_OUTPUT_BYTES_CEILING,
  MIN_LEDGER_TTL_SECONDS,
  workerOptionProblems,
} from './worker-options.js';

describe('workerOptionProblems', () => {
  it('takes no options, and each at the edges of its range', () => {
    expect(workerOptionProblems({})).toEqual([]);
    expect(
      workerOptionProblems({
        maxOutputBytes: MAX_OUTPUT_BYTES_CEILING,
        maxBatchMessages: 1,
        abortGraceMs: 0,
        ledgerTtlSeconds: MIN_LEDGER_TTL_SECONDS,
        leaseMs: LEASE_MS_RANGE.min,
      }),
    ).toEqual([]);
    expect(workerOptionProblems({ leaseMs: LEASE_MS_RANGE.max })).toEqual([]);
    expect(workerOptionProblems({ maxOutputBytes: 1 })).toEqual([]);
  });

  it('names every option out of its range, with the range', () => {
    expect(
      workerOptionProblems({
        maxOutputBytes: MAX_OUTPUT_BYTES_CEILING + 1,
        maxBatchMessages: 0,
        abortGraceMs: -1,
        ledgerTtlSeconds: 60,
        leaseMs: 999,
      }),
    ).toEqual([
      'maxOutputBytes must be an integer, 1 to 524288 (got 524289)',
      'maxBatchMessages must be an integer, at least 1 (got 0)',
      'abortGraceMs must be an integer, at least 0 (got -1)',
      'ledgerTtlSeconds must be an integer, at least 86400 (got 60)',
      'leaseMs must be an integer, 1000 to 3600000 (got 999)',
    ]);
  });

  it.each([NaN, Infinity, 1.5, '100' as unknown as number])(
    'refuses %s, which is not an integer',
    (value) => {
      expect(workerOptionProblems({ maxOutputBytes: value })).toEqual([
        `maxOutputBytes must be an integer, 1 to 524288 (got ${String(value)})`,
      ]);
    },
  );
});
