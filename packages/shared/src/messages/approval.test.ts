import { describe, expect, it } from 'vitest';
import { approval, namedConfirmationId, parseApproval, REASON_RULE } from './approval.js';
import { MAX_REJECTION_REASON_CHARS } from './approval-views.js';

const DIGEST = 'e'.repeat(64);

describe('parseApproval', () => {
  it('reads an approval and drops members the open schema allows', () => {
    const value = { confirmationId: 'conf_1', decision: 'reject', digest: DIGEST, ui: 'slack' };
    expect(parseApproval(value)).toEqual({ ok: true, value: approval('conf_1', 'reject', DIGEST) });
  });

  it.each([
    ['a string', 'approve', 'approval is not a JSON object'],
    ['an array', [], 'approval is not a JSON object'],
    ['null', null, 'approval is not a JSON object'],
    ['no fields', {}, 'confirmationId, decision, digest'],
    ['an unknown decision', { confirmationId: 'c', decision: 'yes', digest: DIGEST }, 'decision'],
    [
      'an uppercase digest',
      { confirmationId: 'c', decision: 'approve', digest: 'E'.repeat(64) },
      'digest',
    ],
    ['an empty id', { confirmationId: '', decision: 'approve', digest: DIGEST }, 'confirmationId'],
    [
      'a huge id',
      { confirmationId: 'c'.repeat(201), decision: 'approve', digest: DIGEST },
      'confirmationId',
    ],
  ])('refuses %s as confirmation/invalid_approval', (_what, value, detail) => {
    const parsed = parseApproval(value);
    expect(parsed).toMatchObject({ ok: false, stage: 'confirmation', code: 'invalid_approval' });
    expect(!parsed.ok && parsed.internalDetail).toContain(detail);
  });

  it('never copies a value into the detail', () => {
    const parsed = parseApproval({ confirmationId: 'c', decision: 'SECRET', digest: 'SECRET' });
    expect(!parsed.ok && parsed.internalDetail).not.toContain('SECRET');
  });
});

describe('parseApproval of a reason', () => {
  const reject = (reason: unknown) =>
    parseApproval({ confirmationId: 'conf_1', decision: 'reject', digest: DIGEST, reason });

  it('keeps a reason, trimmed', () => {
    expect(reject('  Wrong invoice: use inv_482.  ')).toEqual({
      ok: true,
      value: approval('conf_1', 'reject', DIGEST, 'Wrong invoice: use inv_482.'),
    });
  });

  it('keeps one of the longest length, surrogate pairs counted as two', () => {
    const longest = `${'x'.repeat(MAX_REJECTION_REASON_CHARS - 2)}😀`;
    expect(reject(longest)).toMatchObject({ ok: true, value: { reason: longest } });
  });

  it('leaves an approval without a reason without one', () => {
    const parsed = parseApproval({ confirmationId: 'conf_1', decision: 'reject', digest: DIGEST });
    expect(parsed.ok && 'reason' in parsed.value).toBe(false);
  });

  it.each([
    ['empty', ''],
    ['blank', ' \t '],
    ['one character too long', 'x'.repeat(MAX_REJECTION_REASON_CHARS + 1)],
    ['too long once trimmed of nothing', ` ${'x'.repeat(MAX_REJECTION_REASON_CHARS + 1)} `],
    ['a line break inside', 'first line\nsecond line'],
    ['a NUL', 'before\u0000after'],
    ['a C1 control', 'before\u009bafter'],
    ['a bidirectional override', 'approve\u202Eevorppa'],
    ['a lone surrogate', 'broken \uD83D text'],
    ['not text', 42],
    ['null', null],
  ])('refuses a reason that is %s, naming the reason and its rule', (_what, reason) => {
    const parsed = reject(reason);
    expect(parsed).toMatchObject({ ok: false, code: 'invalid_approval' });
    expect(!parsed.ok && parsed.internalDetail).toBe('approval has a missing or bad reason');
    expect(!parsed.ok && parsed.publicMessage).toBe(REASON_RULE);
  });

  it('names the reason beside the other bad fields, never its text', () => {
    const parsed = parseApproval({
      confirmationId: '',
      decision: 'reject',
      reason: 'SECRET\nmore',
    });
    expect(!parsed.ok && parsed.internalDetail).toBe(
      'approval has a missing or bad confirmationId, digest, reason',
    );
    expect(!parsed.ok && parsed.publicMessage).toContain(REASON_RULE);
    expect(JSON.stringify(parsed)).not.toContain('SECRET');
  });
});

describe('namedConfirmationId', () => {
  it('finds the id of an otherwise malformed approval, and nothing in garbage', () => {
    expect(namedConfirmationId({ confirmationId: 'conf_1', decision: 'maybe' })).toBe('conf_1');
    expect(namedConfirmationId({ confirmationId: 7 })).toBeUndefined();
    expect(namedConfirmationId(undefined)).toBeUndefined();
    expect(namedConfirmationId('conf_1')).toBeUndefined();
  });
});
