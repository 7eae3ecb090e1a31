/**
 * The analytics API for the console, as routes for a server of the service's choosing:
 * `GET /analytics/windows?size=minute|hour&since=`, `GET /analytics/alerts?since=`,
 * `GET /analytics/events?size=&start=&…` (the audit events behind a count),
 * `GET /analytics/approvals?since=` (JSON) and `GET /analytics/stream?size=` (server-sent events:
 * `event: window`, `event: alert`, heartbeat comments).
 *
 * Callers sign in as the approval API's do, with a session token (`toolgate-session` header or
 * `Authorization: Bearer`), and must hold one of the reading roles (operator or approver). Counts
 * name tenants, principals and runs, so a caller sees their own tenant's rows, refused principals
 * and runs, events, approvals and alerts only, unless their tenant is the installation's own, whose
 * callers see every tenant. Only the detail role (operator) sees an event's internal detail; the
 * others see what the agent was told. Anything else is refused: no token or a bad one 401, no
 * reading role 403.
 */
import type { Alert, Principal, SessionVerifier } from '@toolgate/shared';
import {
  errorResponse,
  route,
  sessionTokenOf,
  type HttpRequest,
  type HttpResponse,
  type HttpStream,
  type HttpStreamResponse,
  type Route,
} from '../http.js';
import {
  alertsQueryOf,
  approvalsQueryOf,
  eventsQueryOf,
  streamQueryOf,
  windowsQueryOf,
  type QueryProblem,
} from './analytics-query.js';
import type {
  AnalyticsUpdate,
  AnalyticsView,
  AuditEventView,
  WindowSummary,
} from './analytics-view.js';

/** Default roles that may read analytics: a caller must hold one of them. */
export const DEFAULT_ANALYTICS_ROLES: readonly string[] = ['operator', 'approver'];

/** Default role that sees an audit event's internal detail. */
export const DEFAULT_DETAIL_ROLE = 'operator';

/** Default span of approval health when no `since` is given, ms: the last hour. */
export const DEFAULT_APPROVALS_SPAN_MS = 3_600_000;

/** Default time between heartbeat comments on the stream, in ms. */
export const DEFAULT_HEARTBEAT_MS = 15_000;

/** Default bytes a stream's client may leave unread before it is closed. */
export const DEFAULT_MAX_BUFFERED_BYTES = 256 * 1024;

/** Default number of streams open at once. */
export const DEFAULT_MAX_STREAMS = 64;

/** Who may read analytics. */
export interface AnalyticsAccess {
  /** The roles that may read; a caller must hold one. Default {@link DEFAULT_ANALYTICS_ROLES}. */
  readonly roles?: readonly string[];
  /**
   * The role that sees an audit event's `internalDetail` (which may name policies, objects and
   * faults); default {@link DEFAULT_DETAIL_ROLE}. Everyone else sees the public message only.
   */
  readonly detailRole?: string;
  /**
   * The tenant whose readers see every tenant (the installation's own). Without it, every reader
   * sees their own tenant only.
   */
  readonly installationTenant?: string;
}

/** Options of {@link analyticsRoutes}. */
export interface AnalyticsRoutesOptions {
  readonly view: AnalyticsView;
  readonly verifier: Pick<SessionVerifier, 'verify'>;
  /** The clock tokens are checked against. */
  readonly now: () => Date;
  readonly access?: AnalyticsAccess;
  /**
   * Heartbeat period, in ms; default {@link DEFAULT_HEARTBEAT_MS}. At each, the caller's token is
   * checked again, and the stream ends (`event: session_ended`) once it no longer passes.
   */
  readonly heartbeatMs?: number;
  /**
   * Bytes a client may leave unread; default {@link DEFAULT_MAX_BUFFERED_BYTES}. A client further
   * behind gets `event: overflow` and the stream ends: it reconnects and reads what it missed
   * with `since`, rather than the server holding updates without bound.
   */
  readonly maxBufferedBytes?: number;
  /** Streams open at once; more answer 503. Default {@link DEFAULT_MAX_STREAMS}. */
  readonly maxStreams?: number;
}

/** Whose counts a caller sees: every tenant's, or one tenant's. */
type Scope = { readonly all: true } | { readonly all: false; readonly tenant: string };

/** The analytics routes. */
export function analyticsRoutes(options: AnalyticsRoutesOptions): readonly Route[] {
  const { view } = options;
  const signedIn = signIn(options);
  const open = new Set<HttpStream>();
  return [
    route('GET', '/analytics/windows', async (request) => {
      const caller = await signedIn(request);
      if (!caller.ok) return caller.answer;
      const query = windowsQueryOf(request.query);
      if (!query.ok) return badQuery(query);
      const { size, ...since } = query.value;
      const windows = await view.windows(size, since);
      return { status: 200, body: { size, windows: windows.map((w) => scoped(w, caller.scope)) } };
    }),
    route('GET', '/analytics/alerts', async (request) => {
      const caller = await signedIn(request);
      if (!caller.ok) return caller.answer;
      const query = alertsQueryOf(request.query);
      if (!query.ok) return badQuery(query);
      const alerts = await view.alerts(query.value);
      return { status: 200, body: { alerts: alerts.filter((a) => visible(a, caller.scope)) } };
    }),
    route('GET', '/analytics/events', async (request) => {
      const caller = await signedIn(request);
      if (!caller.ok) return caller.answer;
      const query = eventsQueryOf(request.query);
      if (!query.ok) return badQuery(query);
      const page = await view.events(query.value, tenantOf(caller.scope));
      const events = caller.detail ? page.events : page.events.map(withoutDetail);
      return { status: 200, body: { events, complete: page.complete } };
    }),
    route('GET', '/analytics/approvals', async (request) => {
      const caller = await signedIn(request);
      if (!caller.ok) return caller.answer;
      const query = approvalsQueryOf(request.query);
      if (!query.ok) return badQuery(query);
      const until = options.now();
      const since = query.value.since ?? new Date(until.getTime() - DEFAULT_APPROVALS_SPAN_MS);
      const span = { since: since < until ? since : until, until };
      return { status: 200, body: await view.approvals(span, tenantOf(caller.scope)) };
    }),
    route('GET', '/analytics/stream', async (request) => {
      const caller = await signedIn(request);
      if (!caller.ok) return caller.answer;
      const query = streamQueryOf(request.query);
      if (!query.ok) return badQuery(query);
      if (open.size >= (options.maxStreams ?? DEFAULT_MAX_STREAMS)) {
        return errorResponse(
          503,
          'too_many_streams',
          'Too many streams are open; try again later.',
          {
            'retry-after': '5',
          },
        );
      }
      return streamOf(options, { ...caller, open, ...query.value });
    }),
  ];
}

type SignedIn =
  | { readonly ok: true; readonly token: string; readonly scope: Scope; readonly detail: boolean }
  | { readonly ok: false; readonly answer: HttpResponse };

/** Checks the caller's token and role now; what they may see, or the refusal to answer. */
function signIn(options: AnalyticsRoutesOptions) {
  const roles = options.access?.roles ?? DEFAULT_ANALYTICS_ROLES;
  const detailRole = options.access?.detailRole ?? DEFAULT_DETAIL_ROLE;
  const everyTenant = options.access?.installationTenant;
  return async (request: Pick<HttpRequest, 'headers'>): Promise<SignedIn> => {
    const token = sessionTokenOf(request.headers);
    const verified = await options.verifier.verify(token, options.now());
    if (!verified.ok || token === undefined) {
      const message = verified.ok ? 'Sign in.' : verified.publicMessage;
      const answer = errorResponse(401, 'unauthorized', message, { 'www-authenticate': 'Bearer' });
      return { ok: false, answer };
    }
    const principal: Principal = verified.value;
    if (!roles.some((role) => principal.roles.includes(role))) {
      const answer = errorResponse(
        403,
        'forbidden',
        `Reading analytics takes ${rolesText(roles)}.`,
      );
      return { ok: false, answer };
    }
    const scope: Scope =
      everyTenant !== undefined && principal.tenant === everyTenant
        ? { all: true }
        : { all: false, tenant: principal.tenant };
    return { ok: true, token, scope, detail: principal.roles.includes(detailRole) };
  };
}

/** `the operator role`, `the operator or approver role`, … */
function rolesText(roles: readonly string[]): string {
  if (roles.length <= 1) return `the ${roles[0] ?? 'reading'} role`;
  return `the ${roles.slice(0, -1).join(', ')} or ${roles.at(-1)} role`;
}

/** The tenant a scoped read is restricted to; undefined for every tenant. */
function tenantOf(scope: Scope): string | undefined {
  return scope.all ? undefined : scope.tenant;
}

/** An event as a caller without the detail role sees it: what the agent was told, no more. */
function withoutDetail(event: AuditEventView): AuditEventView {
  const { internalDetail: _internal, ...shown } = event;
  return shown;
}

/** A window as `scope` may see it: another tenant's rows, principals and runs left out. */
function scoped(window: WindowSummary, scope: Scope): WindowSummary {
  if (scope.all) return window;
  const own = (x: { readonly tenant: string | null }) => x.tenant === scope.tenant;
  return {
    ...window,
    rows: window.rows.filter(own),
    topRefusedPrincipals: window.topRefusedPrincipals.filter(own),
    topRefusedRuns: window.topRefusedRuns.filter(own),
  };
}

/** Alerts about the installation as a whole (`gate`, or no tenant) are for its own operators. */
function visible(alert: Alert, scope: Scope): boolean {
  return scope.all || alert.subject.tenant === scope.tenant;
}

interface StreamCaller {
  readonly token: string;
  readonly scope: Scope;
  readonly open: Set<HttpStream>;
  readonly size?: WindowSummary['size'];
}

function streamOf(options: AnalyticsRoutesOptions, caller: StreamCaller): HttpStreamResponse {
  const maxBuffered = options.maxBufferedBytes ?? DEFAULT_MAX_BUFFERED_BYTES;
  const signedIn = signIn(options);
  return {
    status: 200,
    headers: { 'content-type': 'text/event-stream; charset=utf-8' },
    open: (stream) => {
      caller.open.add(stream);
      const send = (chunk: string) => {
        if (stream.buffered + Buffer.byteLength(chunk) <= maxBuffered) return stream.write(chunk);
        stream.write(
          sse('overflow', {
            message: 'The stream fell behind; reconnect and read what was missed with since.',
          }),
        );
        stream.close();
        return false;
      };
      const unsubscribe = options.view.subscribe((update) => {
        const event = eventOf(update, caller);
        if (event !== undefined) send(event);
      });
      const heartbeat = setInterval(() => {
        void signedIn({ headers: { authorization: `Bearer ${caller.token}` } }).then((again) => {
          if (again.ok) return void send(': heartbeat\n\n');
          stream.write(
            sse('session_ended', { message: 'The session no longer allows reading analytics.' }),
          );
          stream.close();
        });
      }, options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS);
      stream.onClose(() => {
        clearInterval(heartbeat);
        unsubscribe();
        caller.open.delete(stream);
      });
      send(': open\n\n');
    },
  };
}

/** The stream's text for `update`, or undefined when the caller does not see it. */
function eventOf(update: AnalyticsUpdate, caller: StreamCaller): string | undefined {
  switch (update.kind) {
    case 'window': {
      if (caller.size !== undefined && update.window.size !== caller.size) return undefined;
      const window = scoped(update.window, caller.scope);
      // A window with nothing of the caller's tenant would only tell them others were busy.
      return caller.scope.all || window.rows.length > 0 ? sse('window', window) : undefined;
    }
    case 'alert':
      return visible(update.alert, caller.scope) ? sse('alert', update.alert) : undefined;
  }
}

/** One server-sent event; JSON never contains a raw newline, so `data` is one line. */
function sse(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

function badQuery(problem: QueryProblem): HttpResponse {
  return errorResponse(400, problem.code, problem.message);
}
