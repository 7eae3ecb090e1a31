import { describe, expect, it } from 'vitest';
import { decodeDecidedCursor, encodeDecidedCursor } from './decided-pages.js';
import { decidedQueryOf } from './decided-routes.js';

describe('the cursor of GET /decided', () => {
  it('names the position it was made from, and nothing else decodes', () => {
    const position = { decidedAtMs: 1_800_000_000_123, confirmationId: 'conf_0a1b' };
    expect(decodeDecidedCursor(encodeDecidedCursor(position))).toEqual(position);
    const made = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    for (const cursor of [
      '',
      'not base64!',
      made({ decidedAtMs: 1, confirmationId: 'c' }),
      made([1]),
      made([-1, 'c']),
      made([1.5, 'c']),
      made(['1', 'c']),
      made([1, '']),
      made([1, 'c'.repeat(257)]),
      `${encodeDecidedCursor(position)}=`,
    ]) {
      expect(decodeDecidedCursor(cursor), cursor).toBeUndefined();
    }
  });
});

describe('decidedQueryOf', () => {
  it('reads the limit, the cursor and the exact-match filters', () => {
    const cursor = encodeDecidedCursor({ decidedAtMs: 5, confirmationId: 'conf_1' });
    const query = new URLSearchParams({
      limit: '10',
      cursor,
      tool: 'refund',
      runId: 'run-1',
      outcome: 'amended',
      decidedBy: 'dave',
    });
    expect(decidedQueryOf(query)).toEqual({
      ok: true,
      limit: 10,
      after: { decidedAtMs: 5, confirmationId: 'conf_1' },
      filters: { tool: 'refund', runId: 'run-1', outcome: 'amended', decidedBy: 'dave' },
    });
    expect(decidedQueryOf(new URLSearchParams())).toEqual({ ok: true, limit: 50, filters: {} });
  });

  it.each([
    ['limit=0', 'invalid_limit'],
    ['limit=1e1', 'invalid_limit'],
    ['outcome=won', 'invalid_filter'],
    ['outcome=toString', 'invalid_filter'],
    ['tool=', 'invalid_filter'],
    [`decidedBy=${'x'.repeat(257)}`, 'invalid_filter'],
    ['cursor=forged', 'invalid_cursor'],
  ])('refuses %s', (query, code) => {
    expect(decidedQueryOf(new URLSearchParams(query))).toMatchObject({ ok: false, code });
  });
});
