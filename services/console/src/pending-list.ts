/**
 * The caller's waiting confirmations, every page of `GET /pending` followed up to a bound, as
 * the approval API shows them to that caller (`PendingView` once it says more than the request).
 */
import type { HttpResponse } from '@toolgate/platform';
import type { ConfirmationRequest } from '@toolgate/shared';
import type { Upstream } from './upstream.js';

/** Most pages of `GET /pending` followed for one list. */
export const MAX_PENDING_PAGES = 10;

/** A waiting confirmation as the console relays it: the request and whatever the view adds. */
export type PendingCard = ConfirmationRequest & Readonly<Record<string, unknown>>;

/** The caller's waiting confirmations; `complete` is false when pages were left unread. */
export interface PendingList {
  readonly tenant?: string;
  readonly confirmations: readonly PendingCard[];
  readonly complete: boolean;
}

/** Reads the list as `token`; the upstream's answer instead when a page fails. */
export async function readPending(
  approval: Upstream,
  token: string,
): Promise<
  | { readonly ok: true; readonly list: PendingList }
  | { readonly ok: false; readonly answer: HttpResponse }
> {
  const confirmations: PendingCard[] = [];
  let tenant: string | undefined;
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PENDING_PAGES; page += 1) {
    const query = cursor === undefined ? '' : `?cursor=${encodeURIComponent(cursor)}`;
    const answer = await approval.call('GET', `/pending${query}`, token);
    if (answer.status !== 200) return { ok: false, answer };
    const body = answer.body as { tenant?: string; confirmations?: PendingCard[]; next?: string };
    tenant = body.tenant;
    confirmations.push(...(body.confirmations ?? []));
    cursor = body.next;
    if (cursor === undefined) {
      return {
        ok: true,
        list: { ...(tenant === undefined ? {} : { tenant }), confirmations, complete: true },
      };
    }
  }
  return {
    ok: true,
    list: { ...(tenant === undefined ? {} : { tenant }), confirmations, complete: false },
  };
}
