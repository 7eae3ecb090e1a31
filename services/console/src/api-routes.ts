/**
 * The console's API for its pages; every route needs a session (401 otherwise) and calls the
 * approval or analytics API with that session's token. The console decides nothing itself: the
 * approval API and the approvals consumer make every decision; the console relays the caller's.
 */
import {
  errorResponse,
  route,
  type HttpRequest,
  type HttpResponse,
  type Route,
} from '@toolgate/platform';
import { analyticsStream } from './analytics-stream.js';
import { checkBulkDecision, type BulkDecision } from './bulk-decision.js';
import { readPending } from './pending-list.js';
import { pendingStream } from './pending-stream.js';
import type { ConsoleSession, SessionStore } from './session-store.js';
import { createStreamLimit } from './stream-limit.js';
import type { Upstream } from './upstream.js';
import { guard, type ConsoleOrigin } from './web-guard.js';

/** What the API routes use. */
export interface ApiRoutesDeps {
  readonly sessions: SessionStore;
  readonly origin: ConsoleOrigin;
  readonly approval: Upstream;
  readonly analytics: Upstream;
  /** Time between polls of the pending stream, in ms (default 1000). */
  readonly pendingPollMs?: number;
}

/** The analytics reads relayed as they are. */
const ANALYTICS_READS = ['windows', 'alerts', 'events', 'approvals'] as const;

/** The decisions relayed to the approval API. */
const DECISIONS = ['approve', 'reject', 'amend'] as const;

/** The API routes. */
export function apiRoutes(deps: ApiRoutesDeps): readonly Route[] {
  const signedIn =
    (handler: (request: HttpRequest, session: ConsoleSession) => ReturnType<Route['handler']>) =>
    (request: HttpRequest) => {
      const caller = guard(request, deps.sessions, deps.origin);
      return caller.ok ? handler(request, caller.session) : caller.answer;
    };
  const streams = createStreamLimit();
  return [
    route(
      'GET',
      '/api/pending',
      signedIn(async (_, s) => {
        const read = await readPending(deps.approval, s.token);
        return read.ok ? { status: 200, body: read.list } : read.answer;
      }),
    ),
    route(
      'GET',
      '/api/pending/stream',
      signedIn((_, s) =>
        streams.limit(
          s.id,
          pendingStream({ approval: deps.approval, sessions: deps.sessions, ...pollOf(deps) }, s),
        ),
      ),
    ),
    route(
      'GET',
      '/api/decided',
      signedIn((request, s) => deps.approval.call('GET', `/decided${queryOf(request)}`, s.token)),
    ),
    ...DECISIONS.map((decision) =>
      route(
        'POST',
        `/api/confirmations/:id/${decision}`,
        signedIn((request, s) => {
          const id = encodeURIComponent(request.params['id'] ?? '');
          return deps.approval.call(
            'POST',
            `/confirmations/${id}/${decision}`,
            s.token,
            request.body ?? {},
          );
        }),
      ),
    ),
    route(
      'POST',
      '/api/bulk',
      signedIn((request, s) => bulk(deps, s, request.body)),
    ),
    ...ANALYTICS_READS.map((read) =>
      route(
        'GET',
        `/api/analytics/${read}`,
        signedIn((request, s) =>
          deps.analytics.call('GET', `/analytics/${read}${queryOf(request)}`, s.token),
        ),
      ),
    ),
    route(
      'GET',
      '/api/analytics/stream',
      signedIn(async (request, s) => {
        const relay = { analytics: deps.analytics, sessions: deps.sessions };
        const answer = await analyticsStream(relay, s, request.query);
        return 'open' in answer ? streams.limit(s.id, answer) : answer;
      }),
    ),
  ];
}

function pollOf(deps: ApiRoutesDeps) {
  return deps.pendingPollMs === undefined ? {} : { pollMs: deps.pendingPollMs };
}

function queryOf(request: HttpRequest): string {
  const text = request.query.toString();
  return text === '' ? '' : `?${text}`;
}

/** Checks a bulk decision against the caller's pending list now, then relays each item. */
async function bulk(
  deps: ApiRoutesDeps,
  session: ConsoleSession,
  body: unknown,
): Promise<HttpResponse> {
  const read = await readPending(deps.approval, session.token);
  if (!read.ok) return read.answer;
  const checked = checkBulkDecision(body, read.list.confirmations);
  if (!checked.ok) return errorResponse(400, 'invalid_bulk', checked.message);
  const results = [];
  for (const item of checked.value.items) {
    const answer = await relayOne(deps, session, checked.value, item);
    results.push({ confirmationId: item.confirmationId, status: answer.status, body: answer.body });
  }
  return { status: 200, body: { decision: checked.value.decision, results } };
}

function relayOne(
  deps: ApiRoutesDeps,
  session: ConsoleSession,
  decision: BulkDecision,
  item: BulkDecision['items'][number],
): Promise<HttpResponse> {
  const body = {
    digest: item.digest,
    ...(decision.decision === 'reject' && decision.reason !== undefined
      ? { reason: decision.reason }
      : {}),
  };
  const id = encodeURIComponent(item.confirmationId);
  return deps.approval.call(
    'POST',
    `/confirmations/${id}/${decision.decision}`,
    session.token,
    body,
  );
}
