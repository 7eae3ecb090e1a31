import { describe, expect, it } from 'vitest';
import { callCountToken } from './call-count-token.js';

describe('callCountToken', () => {
  it('is the same for the same call delivered again', () => {
    expect(callCountToken('p-1', 'k', 'd')).toBe(callCountToken('p-1', 'k', 'd'));
  });

  it('tells apart calls sent under one proposalId', () => {
    const first = callCountToken('p-1', 'k1', 'd');
    expect(callCountToken('p-1', 'k2', 'd')).not.toBe(first);
    expect(callCountToken('p-1', 'k1', 'd2')).not.toBe(first);
    expect(callCountToken('p-1a', 'k1', 'd')).not.toBe(callCountToken('p-1', 'ak1', 'd'));
  });

  it('takes ids with a lone surrogate', () => {
    expect(callCountToken('p-\ud800', 'k', 'd')).toMatch(/^[0-9a-f]{64}$/);
  });
});
