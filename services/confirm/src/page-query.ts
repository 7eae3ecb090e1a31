/**
 * The parts of a page query that `GET /pending` and `GET /decided` read alike: `limit` and
 * `cursor`, each read to a value or to a refusal that says what is wrong with it.
 */
import type { CursorPosition, PageCursor } from './page-cursor.js';

/** Items on a page unless `limit` says fewer. */
export const DEFAULT_PAGE_SIZE = 50;

/** Most items a page may hold (`limit`). */
export const MAX_PAGE_SIZE = 100;

/** Why a query cannot be answered: a code and a message for the caller. */
export interface QueryRefusal {
  readonly ok: false;
  readonly code: string;
  readonly message: string;
}

/**
 * The query's `limit`: {@link DEFAULT_PAGE_SIZE} when it has none, else a whole number from 1 to
 * {@link MAX_PAGE_SIZE}.
 */
export function limitOf(
  query: URLSearchParams,
): { readonly ok: true; readonly limit: number } | QueryRefusal {
  const limitText = query.get('limit');
  const limit = limitText === null ? DEFAULT_PAGE_SIZE : Number(limitText);
  if (
    limitText !== null &&
    (!/^[0-9]{1,3}$/.test(limitText) || limit < 1 || limit > MAX_PAGE_SIZE)
  ) {
    return {
      ok: false,
      code: 'invalid_limit',
      message: `limit must be a whole number from 1 to ${MAX_PAGE_SIZE}.`,
    };
  }
  return { ok: true, limit };
}

/** Where the query's `cursor` says to resume (nothing when it has none), as `cursor` decodes it. */
export function resumeOf<K extends string>(
  query: URLSearchParams,
  cursor: PageCursor<K>,
): { readonly ok: true; readonly after?: CursorPosition<K> } | QueryRefusal {
  const text = query.get('cursor');
  if (text === null) return { ok: true };
  const after = cursor.decode(text);
  if (after === undefined) {
    return {
      ok: false,
      code: 'invalid_cursor',
      message: 'The cursor is not one this API gave out; start again without it.',
    };
  }
  return { ok: true, after };
}
