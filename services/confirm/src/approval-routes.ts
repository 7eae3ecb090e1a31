/**
 * The approval API, served apart from the confirm stage's health and metrics: `GET /pending` lists
 * the waiting confirmations of the caller's tenant that the caller may approve or asked for, a
 * page at a time (`limit`, `cursor`; the answer's `next` is the following page's cursor);
 * `POST /confirmations/:id/approve` and `/reject` with `{digest}` publish an Approval to the
 * approvals topic, with the caller's session token as its header, and answer 202.
 * The approvals consumer makes every decision; these routes only authenticate the caller, so an
 * approval given over HTTP and one written to Kafka by a bot are checked alike.
 */
import type { IncomingHttpHeaders } from 'node:http';
import {
  errorResponse,
  route,
  sessionTokenOf,
  type HttpResponse,
  type Outgoing,
  type Route,
  type StageDepsWith,
} from '@toolgate/platform';
import {
  parseApproval,
  SESSION_HEADER,
  type ApprovalDecision,
  type PendingConfirmation,
  type Principal,
} from '@toolgate/shared';
import { amendRoute } from './amend-route.js';
import { approverFacts } from './approver-facts.js';
import { decidedRoutes } from './decided-routes.js';
import { pageQueryOf, pendingPage } from './pending-pages.js';

/** The approval API; `produce` writes in one Kafka transaction (the stage loop's). */
export function approvalRoutes(
  deps: StageDepsWith<'confirmations'>,
  produce: (outgoing: readonly Outgoing[]) => Promise<void>,
): readonly Route[] {
  const signedIn = async (headers: IncomingHttpHeaders) => {
    const token = sessionTokenOf(headers);
    const principal = await deps.gate.verifier.verify(token, deps.now());
    return principal.ok && token !== undefined
      ? { token, principal: principal.value }
      : errorResponse(401, 'unauthorized', principal.ok ? 'Sign in.' : principal.publicMessage, {
          'www-authenticate': 'Bearer',
        });
  };

  const decide = (decision: ApprovalDecision) =>
    route('POST', `/confirmations/:id/${decision}`, async (request) => {
      const caller = await signedIn(request.headers);
      if ('status' in caller) return caller;
      const digest = (request.body as { digest?: unknown } | undefined)?.digest;
      const approval = parseApproval({ confirmationId: request.params['id'], decision, digest });
      if (!approval.ok) return errorResponse(400, 'invalid_approval', approval.publicMessage);
      const { confirmationId } = approval.value;
      await produce([
        {
          topic: deps.outputs.topics.approvals,
          key: confirmationId,
          value: approval.value,
          headers: { [SESSION_HEADER]: caller.token },
        },
      ]);
      return { status: 202, body: { confirmationId, decision } };
    });

  return [
    route('GET', '/pending', async (request) => {
      const caller = await signedIn(request.headers);
      if ('status' in caller) return caller;
      return listPending(deps, caller.principal, request.query);
    }),
    decide('approve'),
    decide('reject'),
    ...decidedRoutes(deps),
    amendRoute(deps, produce),
  ];
}

async function listPending(
  deps: StageDepsWith<'confirmations'>,
  caller: Principal,
  query: URLSearchParams,
): Promise<HttpResponse> {
  const asked = query.get('tenant');
  if (asked !== null && asked !== caller.tenant) {
    return errorResponse(403, 'forbidden', "Only your own tenant's confirmations can be listed.");
  }
  const page = pageQueryOf(query);
  if (!page.ok) return errorResponse(400, page.code, page.message);
  const { confirmations, next } = await pendingPage(deps, caller, page, (p) =>
    mayBeShown(deps, p, caller),
  );
  return {
    status: 200,
    body: { tenant: caller.tenant, confirmations, ...(next === undefined ? {} : { next }) },
  };
}

/**
 * A card shows the call's arguments and objects, so it goes to whoever may approve it, by the same
 * policy and live objects the approvals consumer asks, and to the person who asked for it.
 */
async function mayBeShown(
  deps: StageDepsWith<'confirmations'>,
  pending: PendingConfirmation,
  caller: Principal,
): Promise<boolean> {
  if (pending.requestedBy === caller.subject) return true;
  const facts = await approverFacts(deps, pending, caller);
  return facts.ok && facts.approverAuthorized.ok;
}
