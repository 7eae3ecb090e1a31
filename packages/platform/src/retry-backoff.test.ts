import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { backoffDelay, DEFAULT_RETRY_POLICY } from './retry-backoff.js';

const policy = { initialMs: 100, maxMs: 1_000 };

describe('backoffDelay', () => {
  it('doubles the ceiling with each attempt until the maximum', () => {
    const top = () => 0.999_999;
    expect([1, 2, 3, 4, 5, 6].map((n) => backoffDelay(n, policy, top))).toEqual([
      100, 200, 400, 800, 1_000, 1_000,
    ]);
  });

  it('never waits less than half the ceiling', () => {
    const bottom = () => 0;
    expect([1, 2, 3, 4, 5].map((n) => backoffDelay(n, policy, bottom))).toEqual([
      50, 100, 200, 400, 500,
    ]);
  });

  it('stays within [ceiling/2, ceiling] for any attempt, also absurd ones', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -5, max: 10_000 }),
        fc.double({ min: 0, max: 0.999_999, noNaN: true }),
        (n, r) => {
          const delay = backoffDelay(n, DEFAULT_RETRY_POLICY, () => r);
          return Number.isFinite(delay) && delay >= 100 && delay <= DEFAULT_RETRY_POLICY.maxMs;
        },
      ),
    );
  });
});
