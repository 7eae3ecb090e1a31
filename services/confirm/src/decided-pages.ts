/**
 * `GET /decided`, a page at a time: the caller's tenant's history, newest first, each record
 * shown only to whom it may be shown and only when it matches the filters, and a cursor to the next
 * page. As for `GET /pending`, one request judges at most {@link MAX_EXAMINED} records: a stretch
 * the caller may not see yields a short (even empty) page with a `next` that starts after it.
 */
import type { DecidedPosition, StageDepsWith } from '@toolgate/platform';
import type { DecidedView, Principal } from '@toolgate/shared';
import { pageCursor } from './page-cursor.js';
import { MAX_EXAMINED } from './pending-pages.js';

/** The cursor of `GET /decided`: a place in the tenant's history, by decision time then id. */
export const decidedCursor = pageCursor('decidedAtMs');

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
    ? { confirmations: shown, next: decidedCursor.encode(after) }
    : { confirmations: shown };
}
