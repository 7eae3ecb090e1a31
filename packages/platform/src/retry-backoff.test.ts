import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { backoffDelay, DEFAULT_RETRY_POLICY, retryWhileRetriable } from './retry-backoff.js';

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

describe('retryWhileRetriable', () => {
  const clock = () => {
    let t = 0;
    return { now: () => t, sleep: (ms: number) => ((t += ms), Promise.resolve()) };
  };
  const busy = new Error('busy');
  const broken = new Error('broken');
  const retriable = (e: unknown) => e === busy;

  it('retries a retriable failure until the work succeeds', async () => {
    let calls = 0;
    const retries: number[] = [];
    const value = await retryWhileRetriable(
      () => (++calls < 3 ? Promise.reject(busy) : Promise.resolve('ok')),
      { deadlineMs: 60_000, retriable, ...clock(), onRetry: (n) => retries.push(n) },
    );
    expect(value).toBe('ok');
    expect(calls).toBe(3);
    expect(retries).toEqual([1, 2]);
  });

  it('throws at once an error that is not retriable', async () => {
    let calls = 0;
    await expect(
      retryWhileRetriable(() => (++calls, Promise.reject(broken)), {
        deadlineMs: 60_000,
        retriable,
        ...clock(),
      }),
    ).rejects.toBe(broken);
    expect(calls).toBe(1);
  });

  it('gives up with the last failure when the next wait would pass the deadline', async () => {
    let calls = 0;
    const c = clock();
    await expect(
      retryWhileRetriable(() => (++calls, Promise.reject(busy)), {
        deadlineMs: 5_000,
        retriable,
        policy: { initialMs: 1_000, maxMs: 1_000 },
        ...c,
      }),
    ).rejects.toBe(busy);
    expect(c.now()).toBeLessThanOrEqual(5_000);
    expect(calls).toBeGreaterThan(1);
  });
});
