import { describe, expect, it } from 'vitest';
import { REJECTION_CODES } from '../catalogue.js';
import { accept, rejecterFor } from '../decision.js';
import type { Principal } from '../types.js';
import {
  checkApproval,
  checkApprovalContent,
  type ApprovalFacts,
  type PendingConfirmation,
} from './check-approval.js';

const DIGEST = 'a'.repeat(64);
const OTHER = 'b'.repeat(64);
const alice: Principal = { subject: 'alice', tenant: 'acme', roles: ['approver'] };
const pending: PendingConfirmation = {
  confirmationId: 'conf-1',
  proposalId: 'p-1',
  runId: 'run-1',
  requestId: 'req-1',
  callId: 'call-1',
  tenant: 'acme',
  requestedBy: 'erin',
  requesterRoles: ['clerk'],
  tool: 'refund_payment',
  toolVersion: '1',
  attempt: 0,
  receivedAt: '2025-03-01T11:59:59.000Z',
  args: { payment_id: 'pay-7', amount_cents: 500 },
  objects: [{ type: 'Payment', id: 'pay-7', version: 4 }],
  card: {
    action: 'Refund',
    target: 'Payment pay-7',
    effect: 'Refund 5.00 EUR',
    preview: { amountCents: 500 },
  },
  digest: DIGEST,
  policyVersion: 'c'.repeat(64),
  expiresAt: '2025-03-01T12:30:00.000Z',
};
const denied = rejecterFor('confirmation')(
  'approver_not_authorized',
  undefined,
  'deny: policy x, default deny',
);

const facts = (change: Partial<ApprovalFacts> = {}): ApprovalFacts => ({
  pending,
  decision: 'approve',
  approvalDigest: DIGEST,
  approver: alice,
  approverAuthorized: accept({ policyVersion: pending.policyVersion }),
  alreadyDecided: false,
  liveDigest: DIGEST,
  now: new Date('2025-03-01T12:10:00.000Z'),
  ...change,
});

type Code = keyof (typeof REJECTION_CODES)['confirmation'];
function expectRefusal(change: Partial<ApprovalFacts>, code: Code, detail?: RegExp): void {
  const decision = checkApproval(facts(change));
  expect(decision).toMatchObject({ ok: false, stage: 'confirmation', code, disposition: 'deny' });
  if (decision.ok) return;
  expect(decision.publicMessage).toBe(REJECTION_CODES.confirmation[code].publicMessage);
  for (const secret of ['acme', 'globex', DIGEST, OTHER, 'pay-7', 'mallory']) {
    expect(decision.publicMessage).not.toContain(secret);
  }
  if (detail !== undefined) expect(decision.internalDetail).toMatch(detail);
}

describe('checkApproval', () => {
  it('accepts an authorized approval of the unchanged effect in time', () => {
    expect(checkApproval(facts())).toEqual({
      ok: true,
      value: { confirmedBy: 'alice', confirmedAt: '2025-03-01T12:10:00.000Z' },
    });
  });

  it('refuses a confirmation that was already decided', () => {
    expectRefusal({ alreadyDecided: true }, 'already_decided', /conf-1 was already taken/);
  });

  it('refuses at and after expiresAt, and accepts a millisecond before', () => {
    expectRefusal({ now: new Date('2025-03-01T12:30:00.000Z') }, 'expired');
    expectRefusal(
      { now: new Date('2025-03-01T13:00:00.000Z') },
      'expired',
      /expired at 2025-03-01T12:30:00.000Z/,
    );
    expect(checkApproval(facts({ now: new Date('2025-03-01T12:29:59.999Z') })).ok).toBe(true);
  });

  it('treats an unreadable expiresAt as expired', () => {
    expectRefusal({ pending: { ...pending, expiresAt: 'tomorrow' } }, 'expired');
  });

  it('refuses an approver whom policy denies, keeping the policy detail for the audit', () => {
    expectRefusal(
      { approverAuthorized: denied },
      'approver_not_authorized',
      /alice: deny: policy x, default deny/,
    );
  });

  it('refuses an approver of another tenant even when policy allowed', () => {
    const mallory: Principal = { subject: 'mallory', tenant: 'globex', roles: ['approver'] };
    expectRefusal(
      { approver: mallory },
      'approver_not_authorized',
      /mallory of tenant globex for tenant acme/,
    );
  });

  it('refuses an approval that names a stale digest', () => {
    expectRefusal(
      { approvalDigest: OTHER },
      'content_changed',
      /approval names digest b+, pending is a+/,
    );
  });

  it('refuses when the live objects no longer give the pending digest', () => {
    expectRefusal({ liveDigest: OTHER }, 'content_changed', /live digest b+ differs/);
  });

  it('reports a human rejection', () => {
    expectRefusal({ decision: 'reject' }, 'rejected_by_human', /rejected by alice/);
  });

  it("tells the model a rejecter's reason and keeps it, quoted, in the detail", () => {
    const said = checkApproval(facts({ decision: 'reject', reason: 'Refund only 2.00 EUR.' }));
    expect(said).toMatchObject({
      ok: false,
      code: 'rejected_by_human',
      publicMessage: 'A person rejected this call: Refund only 2.00 EUR.',
      internalDetail: 'confirmation conf-1 rejected by alice: "Refund only 2.00 EUR."',
    });
  });

  it("says the catalogue's text for a rejection without a reason", () => {
    expect(checkApproval(facts({ decision: 'reject' }))).toMatchObject({
      publicMessage: REJECTION_CODES.confirmation.rejected_by_human.publicMessage,
    });
  });

  describe('order', () => {
    it('says already_decided before expired', () => {
      expectRefusal(
        { alreadyDecided: true, now: new Date('2026-01-01T00:00:00Z') },
        'already_decided',
      );
    });

    it('says expired before approver_not_authorized', () => {
      expectRefusal(
        { now: new Date('2026-01-01T00:00:00Z'), approverAuthorized: denied },
        'expired',
      );
    });

    it('says approver_not_authorized before revealing that content changed', () => {
      expectRefusal(
        { approverAuthorized: denied, liveDigest: OTHER, approvalDigest: OTHER },
        'approver_not_authorized',
      );
    });

    it('does not let an unauthorized person reject', () => {
      expectRefusal({ approverAuthorized: denied, decision: 'reject' }, 'approver_not_authorized');
    });

    it('says content_changed before rejected_by_human', () => {
      expectRefusal({ liveDigest: OTHER, decision: 'reject' }, 'content_changed');
    });
  });
});

describe('checkApprovalContent', () => {
  const late = new Date('2025-03-01T13:00:00.000Z');

  it('asks neither the clock nor the approver: that was settled when the approval took', () => {
    const mallory: Principal = { subject: 'mallory', tenant: 'globex', roles: [] };
    expect(checkApprovalContent(facts({ now: late, approver: mallory }))).toEqual({
      ok: true,
      value: { confirmedBy: 'mallory', confirmedAt: late.toISOString() },
    });
  });

  it('refuses a stale or changed digest, then a reject, as checkApproval does', () => {
    expect(checkApprovalContent(facts({ approvalDigest: OTHER }))).toMatchObject({
      code: 'content_changed',
    });
    expect(checkApprovalContent(facts({ liveDigest: OTHER, decision: 'reject' }))).toMatchObject({
      code: 'content_changed',
    });
    expect(checkApprovalContent(facts({ decision: 'reject' }))).toMatchObject({
      code: 'rejected_by_human',
    });
  });
});
