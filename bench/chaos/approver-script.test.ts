import { describe, expect, it } from 'vitest';
import { APPROVER_SHARES, scriptedApprover } from './approver-script.js';

const ids = Array.from({ length: 4000 }, (_, i) => `c-${i.toString(36)}-${(i * 7919) % 1000}`);

describe('scriptedApprover', () => {
  it('approves most, rejects some and leaves some to expire, in about the stated shares', () => {
    const decide = scriptedApprover(1);
    const share = (d: string) => ids.filter((id) => decide(id) === d).length / ids.length;
    expect(share('approve')).toBeCloseTo(APPROVER_SHARES.approve, 1);
    expect(share('reject')).toBeCloseTo(APPROVER_SHARES.reject, 1);
    expect(share('ignore')).toBeCloseTo(1 - APPROVER_SHARES.approve - APPROVER_SHARES.reject, 1);
  });

  it('decides a confirmation the same way every time it sees it, and per seed', () => {
    const a = scriptedApprover(1);
    const again = scriptedApprover(1);
    expect(ids.map((id) => a(id))).toEqual(ids.map((id) => again(id)));
    expect(ids.map((id) => a(id))).toEqual(ids.map((id) => a(id)));
    const other = scriptedApprover(2);
    expect(ids.map((id) => other(id))).not.toEqual(ids.map((id) => a(id)));
  });
});
