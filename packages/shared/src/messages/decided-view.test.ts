import { describe, expect, it } from 'vitest';
import { approval } from './approval.js';
import { pending } from './messages.test-support.js';
import type { AmendNote } from './amend-call.js';
import { approvalEnding, decidedView, EXPIRED_ENDING } from './decided-view.js';

const parked = pending();
const AT = new Date('2025-03-01T12:10:00.000Z');
const rejection = approval(parked.confirmationId, 'reject', parked.digest);
const note: AmendNote = {
  by: 'bob',
  digest: parked.digest,
  reason: 'Changed by bob: replaced by proposal amend_1',
  replacedBy: { proposalId: 'amend_1', runId: parked.runId },
};

describe('decidedView', () => {
  it('records who asked, what the card said, how it ended and when', () => {
    const view = decidedView(parked, { outcome: 'approved', decidedBy: 'bob' }, AT);
    expect(view).toEqual({
      confirmationId: parked.confirmationId,
      proposalId: parked.proposalId,
      runId: parked.runId,
      tenant: parked.tenant,
      tool: parked.tool,
      requestedBy: parked.requestedBy,
      card: parked.card,
      outcome: 'approved',
      decidedBy: 'bob',
      decidedAt: '2025-03-01T12:10:00.000Z',
    });
  });

  it('keeps neither the arguments nor the objects nor the policy version of the call', () => {
    const view = decidedView(parked, EXPIRED_ENDING, AT);
    for (const kept of ['args', 'objects', 'policyVersion', 'requesterRoles', 'digest']) {
      expect(view).not.toHaveProperty(kept);
    }
    expect(view).not.toHaveProperty('decidedBy');
    expect(view.outcome).toBe('expired');
  });
});

describe('approvalEnding', () => {
  it('says approved, by the approver, for a cleared call', () => {
    const approved = approval(parked.confirmationId, 'approve', parked.digest);
    expect(approvalEnding({ approval: approved, approver: 'bob' })).toEqual({
      outcome: 'approved',
      decidedBy: 'bob',
    });
  });

  it('says rejected, with the reason the approval carries when it carries one', () => {
    const ended = { approver: 'bob', endedWith: 'rejected_by_human' };
    expect(approvalEnding({ ...ended, approval: rejection })).toEqual({
      outcome: 'rejected',
      decidedBy: 'bob',
    });
    const reasoned = { ...rejection, reason: 'wrong amount' };
    expect(approvalEnding({ ...ended, approval: reasoned })).toEqual({
      outcome: 'rejected',
      decidedBy: 'bob',
      reason: 'wrong amount',
    });
  });

  it('says amended, and what replaced it, for the rejection the amend sent', () => {
    const ending = approvalEnding({
      approval: rejection,
      approver: 'bob',
      endedWith: 'rejected_by_human',
      amend: note,
    });
    expect(ending).toEqual({
      outcome: 'amended',
      decidedBy: 'bob',
      reason: note.reason,
      replacedBy: note.replacedBy,
    });
  });

  it.each([
    ['another person rejects', { approver: 'carol' }],
    ['the rejection names another digest', { approval: { ...rejection, digest: 'e'.repeat(64) } }],
  ])('says rejected, not amended, when %s', (_, change) => {
    const facts = { approval: rejection, approver: 'bob', endedWith: 'rejected_by_human' };
    const ending = approvalEnding({ ...facts, amend: note, ...change });
    expect(ending.outcome).toBe('rejected');
    expect(ending).not.toHaveProperty('replacedBy');
  });

  it('says changed when the world moved and ended for any other end, by the approver', () => {
    const approved = approval(parked.confirmationId, 'approve', parked.digest);
    const facts = { approval: approved, approver: 'bob', amend: note };
    expect(approvalEnding({ ...facts, endedWith: 'content_changed' })).toEqual({
      outcome: 'changed',
      decidedBy: 'bob',
    });
    for (const code of ['not_authorized', 'internal_error']) {
      expect(approvalEnding({ ...facts, endedWith: code })).toEqual({
        outcome: 'ended',
        decidedBy: 'bob',
      });
    }
  });
});
