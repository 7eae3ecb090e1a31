import { describe, expect, it } from 'vitest';
import type { PendingConfirmation } from './check-approval.js';
import { checkParkedCall } from './check-parked-call.js';
import { pending } from '../messages/messages.test-support.js';

const parked = pending();

describe('checkParkedCall', () => {
  it('takes the same call sent again as already answered, whatever else was resolved anew', () => {
    // A second copy climbs authorize again: live object versions, the card, the digest and the
    // expiry can differ, and the argument keys can come in another order.
    const again: PendingConfirmation = {
      ...parked,
      args: { note: 'SECRET customer note', amount_cents: 1200, payment_id: 'pay_11' },
      objects: [{ type: 'Payment', id: 'pay_11', version: 5 }],
      digest: 'b'.repeat(64),
      receivedAt: '2025-03-01T12:00:04.000Z',
      expiresAt: '2025-03-01T12:30:05.000Z',
    };
    expect(checkParkedCall(parked, again)).toEqual({ ok: true, value: parked });
  });

  it.each([
    ['args', { args: { payment_id: 'pay_11', amount_cents: 50_000, note: 'SECRET' } }],
    ['tool', { tool: 'approve_invoice' }],
    ['callId', { callId: 'call-2' }],
    ['requestId', { requestId: 'req-2' }],
    ['runId', { runId: 'run-2' }],
    ['requestedBy', { requestedBy: 'mallory' }],
  ] as const)('refuses another call under the same proposalId: %s differs', (field, change) => {
    const decision = checkParkedCall(parked, { ...parked, ...change });
    expect(decision.ok).toBe(false);
    if (decision.ok) return;
    expect(decision).toMatchObject({
      stage: 'confirmation',
      code: 'proposal_reused',
      disposition: 'deny',
    });
    expect(decision.internalDetail).toContain(`differs in ${field}`);
    expect(decision.internalDetail).toContain(parked.confirmationId);
    // Audit only, and even there: ids, never what the model wrote.
    expect(decision.internalDetail).not.toContain('50000');
    expect(decision.internalDetail).not.toContain('SECRET');
  });

  it('counts arguments that cannot be canonicalized as different, and does not throw', () => {
    const odd = { ...parked, args: { note: '\ud800' } };
    const decision = checkParkedCall(odd, odd);
    expect(decision.ok).toBe(false);
    if (!decision.ok) expect(decision.internalDetail).toContain('differs in args');
  });
});
