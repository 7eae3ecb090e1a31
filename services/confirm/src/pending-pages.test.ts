import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor, MAX_PAGE_SIZE, pageQueryOf } from './pending-pages.js';

describe('the cursor of GET /pending', () => {
  it('names the position it was made from, and nothing else decodes', () => {
    const position = { expiresAtMs: 1_800_000_000_123, confirmationId: 'conf_0a1b' };
    expect(decodeCursor(encodeCursor(position))).toEqual(position);
    const made = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    for (const cursor of [
      '',
      'not base64!',
      made({ expiresAtMs: 1, confirmationId: 'c' }),
      made([1]),
      made([-1, 'c']),
      made([1.5, 'c']),
      made(['1', 'c']),
      made([1, '']),
      made([1, 'c'.repeat(257)]),
      `${encodeCursor(position)}=`,
      Buffer.from(JSON.stringify([1, 'c']).replace(',', ', ')).toString('base64url'),
    ]) {
      expect(decodeCursor(cursor), cursor).toBeUndefined();
    }
  });
});

describe('pageQueryOf', () => {
  it('takes a limit from 1 to the most a page holds, default 50, and refuses anything else', () => {
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
    expect(pageQueryOf(new URLSearchParams({ cursor: 'x' }))).toMatchObject({
      ok: false,
      code: 'invalid_cursor',
    });
  });
});
