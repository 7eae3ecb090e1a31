import { describe, expect, it } from 'vitest';
import { decidedCursor } from './decided-pages.js';
import { decidedQueryOf } from './decided-routes.js';

describe('decidedQueryOf', () => {
  it('reads the limit, the cursor and the exact-match filters', () => {
    const cursor = decidedCursor.encode({ decidedAtMs: 5, confirmationId: 'conf_1' });
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
