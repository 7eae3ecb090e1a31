/**
 * `GET /decided?limit=&cursor=&tool=&runId=&outcome=&decidedBy=`: the decided confirmations of the
 * caller's tenant, newest first, a page at a time (`next` is the following page's cursor), each
 * filter an exact match. A record shows a call's card, so it is shown to its requester, to whoever
 * decided it, and to callers whom policy lets approve its tool. Policy is asked on the tool itself,
 * with no objects: by the time history is read the call's objects may have changed or be gone, and
 * a record says what happened, not what may be done now.
 */
import {
  route,
  type DecidedPosition,
  type HttpResponse,
  type Route,
  type StageDepsWith,
} from '@toolgate/platform';
import {
  authorizeApproval,
  type DecidedOutcome,
  type DecidedView,
  type Principal,
} from '@toolgate/shared';
import { decidedCursor, decidedPage } from './decided-pages.js';
import { limitOf, resumeOf, type QueryRefusal } from './page-query.js';
import { signedIn } from './signed-in.js';
import { tenantPage } from './tenant-page.js';

/** Longest value a filter may name, in UTF-16 code units. */
const MAX_FILTER_CHARS = 256;

const OUTCOMES: Readonly<Record<DecidedOutcome, true>> = {
  approved: true,
  rejected: true,
  amended: true,
  expired: true,
  changed: true,
  ended: true,
};

/** The filters of `GET /decided`, each a field of {@link DecidedView} matched exactly. */
const FILTERS = ['tool', 'runId', 'outcome', 'decidedBy'] as const;

type Filters = Partial<Record<(typeof FILTERS)[number], string>>;

/** What a `GET /decided` query asked for, or why it cannot be answered. */
export type DecidedQuery =
  | {
      readonly ok: true;
      readonly limit: number;
      readonly after?: DecidedPosition;
      readonly filters: Filters;
    }
  | QueryRefusal;

/** The approval API's history route. */
export function decidedRoutes(deps: StageDepsWith<'confirmations'>): readonly Route[] {
  return [
    route('GET', '/decided', async (request) => {
      const caller = await signedIn(deps, request.headers);
      if ('status' in caller) return caller;
      return listDecided(deps, caller.principal, request.query);
    }),
  ];
}

/** Reads `limit`, `cursor` and the filters of a `GET /decided` query. */
export function decidedQueryOf(query: URLSearchParams): DecidedQuery {
  const limit = limitOf(query);
  if (!limit.ok) return limit;
  const filters: Filters = {};
  for (const name of FILTERS) {
    const value = query.get(name);
    if (value === null) continue;
    if (value === '' || value.length > MAX_FILTER_CHARS) {
      return refused('invalid_filter', `${name} must be 1 to ${MAX_FILTER_CHARS} characters.`);
    }
    filters[name] = value;
  }
  if (filters.outcome !== undefined && !Object.hasOwn(OUTCOMES, filters.outcome)) {
    return refused('invalid_filter', `outcome must be one of ${Object.keys(OUTCOMES).join(', ')}.`);
  }
  const resume = resumeOf(query, decidedCursor);
  return resume.ok ? { ...limit, ...resume, filters } : resume;
}

function listDecided(
  deps: StageDepsWith<'confirmations'>,
  caller: Principal,
  query: URLSearchParams,
): Promise<HttpResponse> {
  return tenantPage(caller, query, 'history', decidedQueryOf, (read) => {
    const { filters } = read;
    const matches = (view: DecidedView) =>
      FILTERS.every((name) => filters[name] === undefined || view[name] === filters[name]);
    return decidedPage(
      deps,
      caller,
      read,
      (view) => matches(view) && mayBeShown(deps, view, caller),
    );
  });
}

/**
 * Shown to the requester, to whoever decided it, and to a caller whom policy lets approve the
 * record's tool (asked on the tool itself, for the requester as recorded; a tool this instance
 * does not know shows to nobody else).
 */
function mayBeShown(
  deps: StageDepsWith<'confirmations'>,
  view: DecidedView,
  caller: Principal,
): boolean {
  if (view.tenant !== caller.tenant) return false;
  if (view.requestedBy === caller.subject || view.decidedBy === caller.subject) return true;
  const tool = deps.gate.registry.get(view.tool);
  if (tool === undefined) return false;
  const requester = { subject: view.requestedBy, tenant: view.tenant, roles: [] };
  const request = { tool: { name: tool.name, sideEffect: tool.spec.sideEffect }, objects: [] };
  return authorizeApproval(caller, requester, request, deps.gate.policies).ok;
}

function refused(code: string, message: string): DecidedQuery {
  return { ok: false, code, message };
}
