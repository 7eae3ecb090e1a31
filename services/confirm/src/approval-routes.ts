/**
 * The approval API, served apart from the confirm stage's health and metrics: `GET /pending` lists
 * the waiting confirmations of the caller's tenant that the caller may approve or asked for, each
 * as a `PendingView` (the card, the arguments, why it waits, what the caller may do, and the call
 * as it would run now), a page at a time (`limit`, `cursor`; the answer's `next` is the following
 * page's cursor); `POST /confirmations/:id/approve` with `{digest}` and `/reject` with
 * `{digest, reason?}` publish an Approval to the approvals topic, with the caller's session token
 * as its header, and answer 202.
 * The approvals consumer makes every decision; these routes only authenticate the caller, so an
 * approval given over HTTP and one written to Kafka by a bot are checked alike.
 */
import {
  errorResponse,
  route,
  type HttpResponse,
  type Outgoing,
  type Route,
  type StageDepsWith,
} from '@toolgate/platform';
import {
  parseApproval,
  pendingView,
  SESSION_HEADER,
  type ApprovalDecision,
  type PendingConfirmation,
  type PendingView,
  type Principal,
  type RejectBody,
} from '@toolgate/shared';
import { amendRoute } from './amend-route.js';
import { rebuiltCallFor } from './approver-facts.js';
import { decidedRoutes } from './decided-routes.js';
import { signedIn } from './signed-in.js';
import { pageQueryOf, pendingPage } from './pending-pages.js';
import { tenantPage } from './tenant-page.js';

/** The approval API; `produce` writes in one Kafka transaction (the stage loop's). */
export function approvalRoutes(
  deps: StageDepsWith<'confirmations'>,
  produce: (outgoing: readonly Outgoing[]) => Promise<void>,
): readonly Route[] {
  const decide = (decision: ApprovalDecision) =>
    route('POST', `/confirmations/:id/${decision}`, async (request) => {
      const caller = await signedIn(deps, request.headers);
      if ('status' in caller) return caller;
      const body = request.body as { [K in keyof RejectBody]?: unknown } | undefined;
      // Only a rejection's reason reaches anyone (the agent's observation); an approval has none.
      const said =
        decision === 'reject' && body?.reason !== undefined ? { reason: body.reason } : {};
      const confirmationId = request.params['id'];
      const approval = parseApproval({ confirmationId, decision, digest: body?.digest, ...said });
      if (!approval.ok) return errorResponse(400, 'invalid_approval', approval.publicMessage);
      await produce([
        {
          topic: deps.outputs.topics.approvals,
          key: approval.value.confirmationId,
          value: approval.value,
          headers: { [SESSION_HEADER]: caller.token },
        },
      ]);
      return { status: 202, body: { confirmationId: approval.value.confirmationId, decision } };
    });

  return [
    route('GET', '/pending', async (request) => {
      const caller = await signedIn(deps, request.headers);
      if ('status' in caller) return caller;
      return listPending(deps, caller.principal, request.query);
    }),
    decide('approve'),
    decide('reject'),
    ...decidedRoutes(deps),
    amendRoute(deps, produce),
  ];
}

function listPending(
  deps: StageDepsWith<'confirmations'>,
  caller: Principal,
  query: URLSearchParams,
): Promise<HttpResponse> {
  return tenantPage(caller, query, 'confirmations', pageQueryOf, (page) =>
    pendingPage(deps, caller, page, (p) => viewFor(deps, p, caller)),
  );
}

/**
 * A card shows the call's arguments and objects, so it goes to whoever may approve it, by the same
 * policy and live objects the approvals consumer asks, and to the person who asked for it
 * (`pendingView`); to them, as the call would run now.
 */
async function viewFor(
  deps: StageDepsWith<'confirmations'>,
  pending: PendingConfirmation,
  caller: Principal,
): Promise<PendingView | undefined> {
  const rebuilt = await rebuiltCallFor(deps, pending, caller);
  return pendingView({ pending, caller, rebuilt });
}
