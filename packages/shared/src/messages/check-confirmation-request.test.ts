import { describe, expect, it } from 'vitest';
import { REJECTION_CODES } from '../catalogue.js';
import type { Card } from '../types.js';
import { checkConfirmationRequest } from './check-confirmation-request.js';
import { confirmationRequest } from './confirmation-request.js';
import { createMessageChecker } from './create-message-checker.js';
import { pending } from './messages.test-support.js';

const check = createMessageChecker();
/** The codec's default envelope ceilings. */
const LIMITS = { maxBytes: 1024 * 1024, maxDepth: 64 };
const requestWith = (card: Partial<Card>) => {
  const p = pending();
  return confirmationRequest({ ...p, card: { ...p.card, ...card } });
};

function expectInvalidCard(card: Partial<Card>, detail: RegExp): void {
  const decision = checkConfirmationRequest(requestWith(card), check, LIMITS);
  expect(decision).toMatchObject({ ok: false, stage: 'confirmation', code: 'invalid_card' });
  if (decision.ok) return;
  expect(decision.disposition).toBe('deny');
  expect(decision.publicMessage).toBe(REJECTION_CODES.confirmation.invalid_card.publicMessage);
  expect(decision.internalDetail).toMatch(detail);
}

describe('checkConfirmationRequest', () => {
  it('accepts the request of a well-formed card', () => {
    const request = requestWith({});
    expect(checkConfirmationRequest(request, check, LIMITS)).toEqual({ ok: true, value: request });
  });

  it('refuses an empty target or effect line, naming where, never the text', () => {
    expectInvalidCard({ target: '' }, /of tool refund_payment: \/card\/target: minLength$/);
    expectInvalidCard({ effect: '', action: 'SECRET' }, /\/card\/effect: minLength/);
    const decision = checkConfirmationRequest(
      requestWith({ action: 'SECRET', effect: '' }),
      check,
      LIMITS,
    );
    expect(JSON.stringify(decision)).not.toContain('SECRET');
  });

  it('refuses what the codec would not read back: a lone surrogate, a prototype key, depth', () => {
    const cut = '\u{1F4B6} refund'.slice(0, 1);
    expectInvalidCard({ preview: { note: cut } }, /would not decode: invalid_json$/);
    expectInvalidCard({ target: `pay_11 ${cut}` }, /would not decode: invalid_json$/);
    expectInvalidCard({ preview: { constructor: 1 } }, /would not decode: forbidden_key$/);
    let deep: unknown = 1;
    for (let i = 0; i < 70; i++) deep = [deep];
    expectInvalidCard({ preview: deep }, /would not decode: too_deep$/);
  });
});
