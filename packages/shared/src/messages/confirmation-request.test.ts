import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { digestOf, planConfirmation } from '../ladder/index.js';
import { approval } from './approval.js';
import {
  confirmationIdFor,
  confirmationRequest,
  pendingConfirmationFor,
  requestedCallOf,
} from './confirmation-request.js';
import { createMessageChecker } from './create-message-checker.js';
import {
  authorized,
  authorizedEnv,
  NOW,
  pending,
  RECEIVED_AT,
  refundTool,
} from './messages.test-support.js';
import { OBJECT_ID_PATTERN } from './redact-arguments.js';
import { validatedEnvelope } from './stage-envelope.js';

const checker = createMessageChecker();
/** Checks `value` as written: the outputs stamp `issuedAt` on every internal envelope. */
const check = (topic: Parameters<typeof checker>[0], value: object) =>
  ['validated', 'authorized', 'cleared'].includes(topic)
    ? checker(topic, { ...value, issuedAt: '2026-12-07T12:00:00.000Z' })
    : checker(topic, value);

describe('confirmationIdFor', () => {
  it('is conf_ and the first 24 hex characters of SHA-256 of the proposalId', () => {
    const hex = createHash('sha256').update('p-81f2').digest('hex');
    expect(confirmationIdFor('p-81f2')).toBe(`conf_${hex.slice(0, 24)}`);
  });

  it('is the same for a redelivered proposal and differs between proposals', () => {
    expect(confirmationIdFor('p-1')).toBe(confirmationIdFor('p-1'));
    expect(confirmationIdFor('p-1')).not.toBe(confirmationIdFor('p-2'));
  });

  it('looks like an object id, so audit redaction keeps it', () => {
    expect(OBJECT_ID_PATTERN.test(confirmationIdFor('anything at all'))).toBe(true);
  });
});

describe('confirmationRequest', () => {
  it('carries exactly the DESIGN §2 fields of the pending confirmation', () => {
    const p = pending();
    const request = confirmationRequest(p);
    expect(request).toEqual({
      confirmationId: p.confirmationId,
      proposalId: 'p-81f2',
      runId: 'run-7',
      tenant: 'tenant-a',
      requestedBy: 'alice',
      tool: 'refund_payment',
      card: p.card,
      digest: p.digest,
      expiresAt: '2025-03-01T12:30:00.000Z',
    });
    expect(check('confirmations', request)).toEqual([]);
  });

  it('never carries the arguments, objects or policy version', () => {
    const json = JSON.stringify(confirmationRequest(pending()));
    expect(json).not.toContain('SECRET');
    expect(json).not.toContain('policyVersion');
    expect(json).not.toContain('"version"');
  });

  it('writes a missing preview as null, so the card keeps all four fields', () => {
    const p = pending();
    const { preview: _none, ...rest } = p.card;
    const request = confirmationRequest({ ...p, card: { ...rest, preview: undefined } });
    expect(request.card.preview).toBeNull();
    expect(check('confirmations', request)).toEqual([]);
  });
});

describe('pendingConfirmationFor', () => {
  it('parks what an approval is later checked against, expiring after the TTL', () => {
    const a = authorizedEnv();
    const plan = {
      card: { action: 'Refund payment', target: 'pay_11', effect: 'refund', preview: null },
      digest: 'e'.repeat(64),
    };
    const p = pendingConfirmationFor(a, plan, NOW, 60);
    expect(p).toEqual({
      confirmationId: confirmationIdFor('p-81f2'),
      proposalId: 'p-81f2',
      runId: 'run-7',
      requestId: 'req-42',
      callId: 'call_abc',
      tenant: 'tenant-a',
      requestedBy: 'alice',
      requesterRoles: ['clerk'],
      tool: 'refund_payment',
      toolVersion: '3',
      attempt: 0,
      receivedAt: RECEIVED_AT,
      args: a.args,
      objects: [{ type: 'Payment', id: 'pay_11', version: 4 }],
      card: plan.card,
      digest: plan.digest,
      policyVersion: a.policyVersion,
      expiresAt: '2025-03-01T12:01:00.000Z',
    });
  });

  it('waits 30 minutes by default', () => {
    const plan = { card: pending().card, digest: 'e'.repeat(64) };
    expect(pendingConfirmationFor(authorizedEnv(), plan, NOW).expiresAt).toBe(
      '2025-03-01T12:30:00.000Z',
    );
  });

  it('builds a valid request from the real confirmation plan', () => {
    const a = authorizedEnv();
    const plan = planConfirmation(a, refundTool());
    if (!plan.needed) throw new Error('a destructive tool always needs confirmation');
    const request = confirmationRequest(pendingConfirmationFor(a, plan, NOW));
    expect(request.digest).toBe(plan.digest);
    expect(request.card).toEqual(plan.card);
    expect(check('confirmations', request)).toEqual([]);
  });
});

describe("a card's changes", () => {
  const changes = [{ field: 'refunded', before: '0.00 EUR', after: '12.00 EUR' }];

  it('go to the approver with the card, and the topic carries them', () => {
    const p = { ...pending(), card: { ...pending().card, changes } };
    const request = confirmationRequest(p);
    expect(request.card.changes).toEqual(changes);
    expect(check('confirmations', request)).toEqual([]);
  });

  it('are refused by the topic when malformed, so such a card is never parked', () => {
    const bad = [{ field: '', before: 0, after: '1', extra: true }];
    const p = { ...pending(), card: { ...pending().card, changes: bad as never } };
    expect(check('confirmations', confirmationRequest(p)).join('; ')).toMatch(/changes\/0/);
  });

  it('count in the digest, and a card without them digests as cards always did', () => {
    const a = authorized();
    const card = pending().card;
    // Pinned: what an approver was shown before cards could carry changes still binds the same.
    expect(digestOf(a, card)).toBe(
      'f14de95b4eea0660f8ad2381c2028e47eb7ef1dc6ea6b3d9e5a1f768599b78d1',
    );
    expect(digestOf(a, { ...card, changes: undefined } as never)).toBe(digestOf(a, card));
    expect(digestOf(a, { ...card, changes })).not.toBe(digestOf(a, card));
    const other = [{ ...changes[0]!, before: '1.00 EUR' }];
    expect(digestOf(a, { ...card, changes: other })).not.toBe(digestOf(a, { ...card, changes }));
  });
});

describe('pendingConfirmationFor with a rule', () => {
  it('keeps why the call waits, and leaves it out when none is given', () => {
    const plan = { card: pending().card, digest: 'e'.repeat(64) };
    const rule = 'Refunds need a person.';
    expect(pendingConfirmationFor(authorizedEnv(), { ...plan, rule }, NOW).rule).toBe(rule);
    expect(pendingConfirmationFor(authorizedEnv(), plan, NOW)).not.toHaveProperty('rule');
  });
});

describe('requestedCallOf', () => {
  it('gives back the call as validate accepted it, roles and receivedAt included', () => {
    const a = authorizedEnv();
    const plan = { card: pending().card, digest: 'e'.repeat(64) };
    const call = requestedCallOf(pendingConfirmationFor(a, plan, NOW));
    expect(call).toEqual(validatedEnvelope(a, RECEIVED_AT));
    expect(check('validated', call)).toEqual([]);
  });

  it('keeps a fence repair, so the cleared envelope says how the call was read', () => {
    const a = { ...authorizedEnv(), repaired: 'fence' as const };
    const plan = { card: pending().card, digest: 'e'.repeat(64) };
    expect(requestedCallOf(pendingConfirmationFor(a, plan, NOW)).repaired).toBe('fence');
  });
});

describe('approval', () => {
  it('builds the Approval value the HTTP route publishes', () => {
    const value = approval('conf_1', 'approve', 'e'.repeat(64));
    expect(value).toEqual({
      confirmationId: 'conf_1',
      decision: 'approve',
      digest: 'e'.repeat(64),
    });
    expect(check('approvals', value)).toEqual([]);
  });
});
