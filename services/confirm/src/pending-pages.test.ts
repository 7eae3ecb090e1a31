import { describe, expect, it } from 'vitest';
import { MAX_PAGE_SIZE } from './page-query.js';
import { pageQueryOf, pendingCursor } from './pending-pages.js';

describe('pageQueryOf', () => {
  it('takes a limit from 1 to the most a page holds, default 50, and a cursor it gave out', () => {
    expect(pageQueryOf(new URLSearchParams(''))).toEqual({ ok: true, limit: 50 });
    expect(pageQueryOf(new URLSearchParams(`limit=${MAX_PAGE_SIZE}`))).toEqual({
      ok: true,
      limit: MAX_PAGE_SIZE,
    });
    for (const limit of ['0', '101', '-1', '1e1', ' 5', '5.0', '', '0x10']) {
      expect(pageQueryOf(new URLSearchParams({ limit })), limit).toMatchObject({
        ok: false,
        code: 'invalid_limit',
      });
    }
    const after = { expiresAtMs: 1_800_000_000_123, confirmationId: 'conf_0a1b' };
    expect(pageQueryOf(new URLSearchParams({ cursor: pendingCursor.encode(after) }))).toEqual({
      ok: true,
      limit: 50,
      after,
    });
    expect(pageQueryOf(new URLSearchParams({ cursor: 'x' }))).toMatchObject({
      ok: false,
      code: 'invalid_cursor',
    });
  });
});
