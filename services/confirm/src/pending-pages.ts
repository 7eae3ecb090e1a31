/**
 * `GET /pending`, a page at a time: the caller's tenant's waiting confirmations in expiry order,
 * each shown only to whom it may be shown (as that caller's view of it), and a cursor to the next
 * page. A page walks the tenant's
 * index from the cursor on, judging each entry for this caller as it goes, so whatever one
 * requester parks cannot hide another's confirmations: an approver who follows `next` sees every
 * one they may see. The work of one request is bounded ({@link MAX_EXAMINED} entries judged): a
 * stretch of entries the caller may not see yields a short (even empty) page with a `next` that
 * starts after it.
 */
import type { PendingPosition, StageDepsWith } from '@toolgate/platform';
import type { PendingConfirmation, Principal } from '@toolgate/shared';
import { pageCursor } from './page-cursor.js';
import { limitOf, resumeOf, type QueryRefusal } from './page-query.js';

/** Most entries one request judges, shown or not: the bound of its work. */
export const MAX_EXAMINED = 200;

/** The cursor of `GET /pending`: a place in the tenant's list, by expiry then confirmation id. */
export const pendingCursor = pageCursor('expiresAtMs');

/** One page of views `V`, and the cursor to the next when entries remain. */
export interface PendingPage<V> {
  readonly confirmations: readonly V[];
  readonly next?: string;
}

/** What the query asked for, or why it cannot be answered. */
export type PageQuery =
  { readonly ok: true; readonly limit: number; readonly after?: PendingPosition } | QueryRefusal;

/** Reads `limit` and `cursor` of a `GET /pending` query. */
export function pageQueryOf(query: URLSearchParams): PageQuery {
  const limit = limitOf(query);
  if (!limit.ok) return limit;
  const resume = resumeOf(query, pendingCursor);
  return resume.ok ? { ...limit, ...resume } : resume;
}

/**
 * A page of the confirmations `caller` may see, from `after` on; `viewOf` judges each one and
 * gives the caller's view of it, or undefined when it is not to be shown to them. Stops at
 * `limit` shown, or at {@link MAX_EXAMINED} judged, or at the end of the list.
 */
export async function pendingPage<V>(
  deps: StageDepsWith<'confirmations'>,
  caller: Principal,
  query: { readonly limit: number; readonly after?: PendingPosition },
  viewOf: (pending: PendingConfirmation) => Promise<V | undefined>,
): Promise<PendingPage<V>> {
  const nowMs = deps.now().getTime();
  const shown: V[] = [];
  let after = query.after;
  let examined = 0;
  let more = true;
  while (more && shown.length < query.limit && examined < MAX_EXAMINED) {
    const size = Math.min(query.limit - shown.length, MAX_EXAMINED - examined);
    const window = await deps.confirmations.listPending(caller.tenant, {
      ...(after === undefined ? {} : { after }),
      expiredUpToMs: nowMs,
      size,
    });
    const views = await Promise.all(
      window.entries.map((e) =>
        e.pending !== undefined && Date.parse(e.pending.expiresAt) > nowMs
          ? viewOf(e.pending)
          : Promise.resolve(undefined),
      ),
    );
    for (const [i, entry] of window.entries.entries()) {
      const view = views[i];
      if (view !== undefined) shown.push(view);
      after = entry.position;
    }
    examined += window.entries.length;
    more = window.more && window.entries.length > 0;
  }
  return more && after !== undefined
    ? { confirmations: shown, next: pendingCursor.encode(after) }
    : { confirmations: shown };
}
