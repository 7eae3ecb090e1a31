/**
 * How the approval API answers a list query: only ever a page of the caller's own tenant's list,
 * the query read before anything is listed, and the page as `{tenant, confirmations, next?}`.
 */
import { errorResponse, type HttpResponse } from '@toolgate/platform';
import type { Principal } from '@toolgate/shared';
import type { QueryRefusal } from './page-query.js';

/** A page of a list: what it shows, and the cursor to the next when more remain. */
export interface ListPage {
  readonly confirmations: readonly unknown[];
  readonly next?: string;
}

/**
 * Answers `query` with a page of `caller`'s tenant's `what` (as the 403 names it): 403 when the
 * query names another tenant, 400 with the refusal when `read` cannot read it, else 200 with the
 * page `list` gives for what `read` read.
 */
export async function tenantPage<Q extends { readonly ok: true }>(
  caller: Principal,
  query: URLSearchParams,
  what: string,
  read: (query: URLSearchParams) => Q | QueryRefusal,
  list: (read: Q) => Promise<ListPage>,
): Promise<HttpResponse> {
  const asked = query.get('tenant');
  if (asked !== null && asked !== caller.tenant) {
    return errorResponse(403, 'forbidden', `Only your own tenant's ${what} can be listed.`);
  }
  const page = read(query);
  if (!page.ok) return errorResponse(400, page.code, page.message);
  const { confirmations, next } = await list(page);
  return {
    status: 200,
    body: { tenant: caller.tenant, confirmations, ...(next === undefined ? {} : { next }) },
  };
}
