import type { LedgerRenew } from '@toolgate/platform/redis';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { keepLease, LeaseLost } from './lease-keeper.js';

describe('keepLease', () => {
  // Only the renewal timer is faked: each test moves it on, with no wait for time to pass.
  beforeEach(() => void vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] }));
  afterEach(() => void vi.useRealTimers());

  /** A keeper whose renewals answer from `answers`, in order, then `renewed`. */
  function keeper(answers: (LedgerRenew | Error)[]) {
    const seen = { renewals: 0, lost: [] as string[], errors: [] as unknown[] };
    const lease = keepLease({
      leaseMs: 15_000,
      renew: () => {
        seen.renewals += 1;
        const answer = answers.shift() ?? { outcome: 'renewed', leaseUntil: 1 };
        return answer instanceof Error ? Promise.reject(answer) : Promise.resolve(answer);
      },
      onError: (error) => void seen.errors.push(error),
      onLost: (holder) => void seen.lost.push(holder),
    });
    return { lease, seen };
  }

  it('renews every third of the lease, not before, and stops when told', async () => {
    const { lease, seen } = keeper([]);
    await vi.advanceTimersByTimeAsync(4_999);
    expect(seen.renewals).toBe(0);
    await vi.advanceTimersByTimeAsync(10_001);
    expect(seen.renewals).toBe(3);
    lease.stop();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(seen.renewals).toBe(3);
    expect(lease.signal.aborted).toBe(false);
  });

  it('aborts the signal at once when another delivery holds the entry, and renews no more', async () => {
    const { lease, seen } = keeper([{ outcome: 'lost', holder: 'delivery-2' }]);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(lease.signal.aborted).toBe(true);
    expect(lease.signal.reason).toBeInstanceOf(LeaseLost);
    expect((lease.signal.reason as LeaseLost).holder).toBe('delivery-2');
    expect(seen.lost).toEqual(['delivery-2']);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(seen.renewals).toBe(1);
  });

  it('keeps the handler going when a renewal fails, and tries again', async () => {
    const down = new Error('redis down');
    const { lease, seen } = keeper([down]);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(seen.errors).toEqual([down]);
    expect(seen.renewals).toBe(2);
    expect(lease.signal.aborted).toBe(false);
    lease.stop();
  });
});
