import { describe, expect, it } from 'vitest';
import { accept, rejecterFor } from '../decision.js';
import { authorized, NOW, pending } from '../messages/messages.test-support.js';
import type { Principal } from '../types.js';
import { decideApproval, decideTakenApproval, type ApprovalCheck } from './decide-approval.js';
import { refusal } from './validated.js';

const PENDING = pending();
const STALE = 'f'.repeat(64);
const carla: Principal = { subject: 'carla', tenant: 'tenant-a', roles: ['approver'] };
const liveCall = (digest = PENDING.digest) =>
  accept({ authorized: authorized(), plan: { needed: true, card: PENDING.card, digest } } as const);

const check = (change: Partial<ApprovalCheck> = {}): ApprovalCheck => ({
  pending: PENDING,
  decision: 'approve',
  approvalDigest: PENDING.digest,
  approver: carla,
  approverAuthorized: accept({ policyVersion: PENDING.policyVersion }),
  live: liveCall(),
  now: NOW,
  ...change,
});

const notAllowed = rejecterFor('confirmation')('approver_not_authorized', undefined, 'deny');
const gone = refusal(rejecterFor('resolution')('not_found', undefined, 'Payment pay_11 gone'));

describe('decideApproval', () => {
  it('clears the live call, confirmed by the approver at now', () => {
    expect(decideApproval(check())).toEqual({
      act: 'clear',
      call: authorized(),
      confirmed: { confirmedBy: 'carla', confirmedAt: NOW.toISOString() },
    });
  });

  it('keeps waiting for an approver policy refuses, whatever they decided', () => {
    for (const decision of ['approve', 'reject'] as const) {
      const action = decideApproval(check({ decision, approverAuthorized: notAllowed }));
      expect(action).toMatchObject({
        act: 'keep',
        refusal: { rejected: { code: 'approver_not_authorized' } },
      });
    }
  });

  it('keeps waiting for an approver of another tenant, even when the world moved', () => {
    const other = { ...carla, tenant: 'tenant-b' };
    const action = decideApproval(check({ approver: other, live: liveCall(STALE) }));
    expect(action).toMatchObject({
      act: 'keep',
      refusal: { rejected: { code: 'approver_not_authorized' } },
    });
  });

  it('keeps waiting for an approval of a stale card', () => {
    const action = decideApproval(check({ approvalDigest: STALE }));
    expect(action).toMatchObject({
      act: 'keep',
      refusal: { rejected: { code: 'content_changed' } },
    });
  });

  it('keeps waiting after expiry: the sweeper ends the call, once', () => {
    const late = new Date(Date.parse(PENDING.expiresAt));
    expect(decideApproval(check({ now: late }))).toMatchObject({
      act: 'keep',
      refusal: { rejected: { code: 'expired' } },
    });
  });

  it('ends the call when the live card differs from the approved one', () => {
    expect(decideApproval(check({ live: liveCall(STALE) }))).toMatchObject({
      act: 'end',
      refusal: { rejected: { stage: 'confirmation', code: 'content_changed' } },
    });
  });

  it('ends the call when it no longer needs the confirmation it was parked for', () => {
    const live = accept({ authorized: authorized(), plan: { needed: false } } as const);
    expect(decideApproval(check({ live }))).toMatchObject({
      act: 'end',
      refusal: { rejected: { code: 'content_changed' } },
    });
  });

  it("ends the call with the requester's own refusal when it no longer authorizes", () => {
    expect(decideApproval(check({ live: gone }))).toEqual({ act: 'end', refusal: gone });
    expect(decideApproval(check({ live: gone, decision: 'reject' }))).toEqual({
      act: 'end',
      refusal: gone,
    });
  });

  it('ends the call when a person rejects it', () => {
    expect(decideApproval(check({ decision: 'reject' }))).toMatchObject({
      act: 'end',
      refusal: { rejected: { code: 'rejected_by_human', disposition: 'deny' } },
    });
  });

  it('lets nobody who may not approve learn that the call stopped authorizing', () => {
    const action = decideApproval(check({ approverAuthorized: notAllowed, live: gone }));
    expect(action).toMatchObject({
      act: 'keep',
      refusal: { rejected: { code: 'approver_not_authorized' } },
    });
  });
});

describe('decideTakenApproval', () => {
  const late = new Date(Date.parse(PENDING.expiresAt) + 60_000);
  const taken = (change: Partial<ApprovalCheck> = {}) => {
    const { approverAuthorized: _settled, ...rest } = check(change);
    return rest;
  };

  it('clears the live call however late it comes again: who approved, and when, was settled', () => {
    expect(decideTakenApproval(taken({ now: late }))).toEqual({
      act: 'clear',
      call: authorized(),
      confirmed: { confirmedBy: 'carla', confirmedAt: late.toISOString() },
    });
  });

  it('ends the call, never keeps it, when the live card changed', () => {
    expect(decideTakenApproval(taken({ live: liveCall(STALE) }))).toMatchObject({
      act: 'end',
      refusal: { rejected: { code: 'content_changed' } },
    });
    expect(decideTakenApproval(taken({ approvalDigest: STALE }))).toMatchObject({
      act: 'end',
      refusal: { rejected: { code: 'content_changed' } },
    });
  });

  it('ends the call with the refusal of a requester whose call no longer authorizes', () => {
    expect(decideTakenApproval(taken({ live: gone }))).toEqual({ act: 'end', refusal: gone });
  });

  it('ends the call with rejected_by_human for a reject', () => {
    expect(decideTakenApproval(taken({ decision: 'reject', now: late }))).toMatchObject({
      act: 'end',
      refusal: { rejected: { code: 'rejected_by_human', disposition: 'deny' } },
    });
  });
});
