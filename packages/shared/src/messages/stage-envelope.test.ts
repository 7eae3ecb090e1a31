import { describe, expect, it } from 'vitest';
import { createMessageChecker } from './create-message-checker.js';
import { authorized, validated } from './messages.test-support.js';
import { authorizedEnvelope, clearedEnvelope, validatedEnvelope } from './stage-envelope.js';

const checker = createMessageChecker();
/** Checks `value` as written: the outputs stamp `issuedAt` on every internal envelope. */
const check = (topic: Parameters<typeof checker>[0], value: object) =>
  ['validated', 'authorized', 'cleared'].includes(topic)
    ? checker(topic, { ...value, issuedAt: '2026-12-07T12:00:00.000Z' })
    : checker(topic, value);
const RECEIVED = '2025-03-01T11:59:59.250Z';
const CONFIRMED = { confirmedBy: 'bob', confirmedAt: '2025-03-01T12:05:00.000Z' };

describe('validatedEnvelope', () => {
  it('is the validated proposal plus receivedAt, valid on validated only', () => {
    const v = validated();
    const e = validatedEnvelope(v, RECEIVED);
    expect(e).toEqual({ ...v, receivedAt: RECEIVED });
    expect(check('validated', e)).toEqual([]);
    expect(check('authorized', e)).not.toEqual([]);
  });

  it('drops members the contract does not name, so the closed schema still holds', () => {
    const v = { ...validated(), leaked: 'x', context: { ...validated().context, token: 'jws' } };
    const e = validatedEnvelope(v, RECEIVED);
    expect(e).not.toHaveProperty('leaked');
    expect(e.context).not.toHaveProperty('token');
    expect(check('validated', e)).toEqual([]);
  });

  it('keeps the fence repair mark when there was one', () => {
    const e = validatedEnvelope({ ...validated(), repaired: 'fence' }, RECEIVED);
    expect(e.repaired).toBe('fence');
    expect(check('validated', e)).toEqual([]);
  });
});

describe('authorizedEnvelope', () => {
  it('adds the resolved objects and the policy version', () => {
    const a = authorized();
    const e = authorizedEnvelope(a, RECEIVED);
    expect(e).toEqual({ ...a, receivedAt: RECEIVED });
    expect(check('authorized', e)).toEqual([]);
    expect(check('validated', e)).not.toEqual([]);
  });

  it('builds from a decoded authorized envelope without carrying over extras', () => {
    const decoded = JSON.parse(
      JSON.stringify({ ...authorizedEnvelope(authorized(), RECEIVED), extra: 1 }),
    ) as ReturnType<typeof authorizedEnvelope>;
    expect(check('authorized', authorizedEnvelope(decoded, decoded.receivedAt))).toEqual([]);
  });
});

describe('clearedEnvelope', () => {
  it('is the authorized envelope when no person had to confirm', () => {
    const e = clearedEnvelope(authorized(), RECEIVED);
    expect(e).toEqual(authorizedEnvelope(authorized(), RECEIVED));
    expect(check('cleared', e)).toEqual([]);
  });

  it('adds confirmedBy and confirmedAt after an approval', () => {
    const e = clearedEnvelope(authorized(), RECEIVED, CONFIRMED);
    expect(e).toMatchObject(CONFIRMED);
    expect(check('cleared', e)).toEqual([]);
    expect(check('authorized', e)).not.toEqual([]);
  });
});
