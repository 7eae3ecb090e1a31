/**
 * `GET /decided`, a page at a time: the caller's tenant's history, newest first, each record
 * shown only to whom it may be shown and only when it matches the filters, and a cursor to the next
 * page. As for `GET /pending`, one request judges at most {@link MAX_EXAMINED} records: a stretch
 * the caller may not see yields a short (even empty) page with a `next` that starts after it.
 */
import type { DecidedPosition, StageDepsWith } from '@toolgate/platform';
import type { DecidedView, Principal } from '@toolgate/shared';
import { MAX_EXAMINED } from './pending-pages.js';

/** Longest confirmation id a cursor may name. */
const MAX_CURSOR_ID = 256;

/** One page of history, and the cursor to the next when older records remain. */
export interface DecidedPage {
  readonly confirmations: readonly DecidedView[];
  readonly next?: string;
}

/**
 * A page of the records `caller` may see, from `after` on; `shows` judges each one. Stops at
 * `limit` shown, or at {@link MAX_EXAMINED} judged, or at the end of the history.
 */
export async function decidedPage(
  deps: StageDepsWith<'confirmations'>,
  caller: Principal,
  query: { readonly limit: number; readonly after?: DecidedPosition },
  shows: (view: DecidedView) => boolean,
): Promise<DecidedPage> {
  const shown: DecidedView[] = [];
  let after = query.after;
  let examined = 0;
  let more = true;
  while (more && shown.length < query.limit && examined < MAX_EXAMINED) {
    const window = await deps.confirmations.listDecided(caller.tenant, {
      ...(after === undefined ? {} : { after }),
      size: MAX_EXAMINED - examined,
    });
    let left = window.entries.length;
    for (const entry of window.entries) {
      if (shown.length === query.limit) break;
      if (entry.view !== undefined && shows(entry.view)) shown.push(entry.view);
      after = entry.position;
      left -= 1;
    }
    examined += window.entries.length - left;
    more = left > 0 || (window.more && window.entries.length > 0);
  }
  return more && after !== undefined
    ? { confirmations: shown, next: encodeDecidedCursor(after) }
    : { confirmations: shown };
}

/** A position as an opaque cursor: base64url of `[decidedAtMs, confirmationId]`. */
export function encodeDecidedCursor(position: DecidedPosition): string {
  const pair = [position.decidedAtMs, position.confirmationId];
  return Buffer.from(JSON.stringify(pair)).toString('base64url');
}

/**
 * The position a cursor names, or undefined when it is not one {@link encodeDecidedCursor} could
 * have made. It only says where to resume within the caller's own tenant's history.
 */
export function decodeDecidedCursor(cursor: string): DecidedPosition | undefined {
  if (cursor.length > 2 * MAX_CURSOR_ID || !/^[A-Za-z0-9_-]+$/.test(cursor)) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (!Array.isArray(value) || value.length !== 2) return undefined;
  const [decidedAtMs, confirmationId] = value as unknown[];
  if (typeof decidedAtMs !== 'number' || !Number.isSafeInteger(decidedAtMs) || decidedAtMs < 0) {
    return undefined;
  }
  if (
    typeof confirmationId !== 'string' ||
    confirmationId === '' ||
    confirmationId.length > MAX_CURSOR_ID
  ) {
    return undefined;
  }
  const position = { decidedAtMs, confirmationId };
  return encodeDecidedCursor(position) === cursor ? position : undefined;
}
