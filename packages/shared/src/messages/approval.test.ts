import { describe, expect, it } from 'vitest';
import { approval, namedConfirmationId, parseApproval } from './approval.js';

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

describe('namedConfirmationId', () => {
  it('finds the id of an otherwise malformed approval, and nothing in garbage', () => {
    expect(namedConfirmationId({ confirmationId: 'conf_1', decision: 'maybe' })).toBe('conf_1');
    expect(namedConfirmationId({ confirmationId: 7 })).toBeUndefined();
    expect(namedConfirmationId(undefined)).toBeUndefined();
    expect(namedConfirmationId('conf_1')).toBeUndefined();
  });
});
