/**
 * Signing in and out: `POST /api/session` with `{token}` (or `{devSignIn: index}`) verifies the
 * token with the deployment's session keys and sets the session cookie; `GET /api/session` says
 * who is signed in (and the page's CSRF token); `DELETE /api/session` signs out.
 * `GET /api/dev-sign-ins` lists the development sign-ins' labels, when there are any.
 */
import { errorResponse, route, type HttpResponse, type Route } from '@toolgate/platform';
import type { SessionVerifier } from '@toolgate/shared';
import type { DevSignIn } from './dev-sign-ins.js';
import {
  DEFAULT_MAX_SESSION_MS,
  tokenExpiryMs,
  type ConsoleSession,
  type SessionStore,
} from './session-store.js';
import {
  cookieOf,
  guard,
  originRefusal,
  SESSION_COOKIE,
  servedOverHttps,
  sessionCookie,
  type ConsoleOrigin,
} from './web-guard.js';

/** Longest session token accepted, in characters. */
export const MAX_TOKEN_CHARS = 8192;

/** What the session routes use. */
export interface SessionRoutesDeps {
  readonly sessions: SessionStore;
  readonly verifier: Pick<SessionVerifier, 'verify'>;
  readonly devSignIns: readonly DevSignIn[];
  readonly origin: ConsoleOrigin;
  readonly now: () => Date;
}

/** The session routes. */
export function sessionRoutes(deps: SessionRoutesDeps): readonly Route[] {
  const secure = servedOverHttps(deps.origin);
  return [
    route('POST', '/api/session', async (request) => {
      const refused = originRefusal(request, deps.origin);
      if (refused !== undefined) return refused;
      const token = tokenOf(request.body, deps.devSignIns);
      if (typeof token !== 'string') return token;
      // Signing in again replaces the session this browser had.
      const before = cookieOf(request.headers, SESSION_COOKIE);
      if (before !== undefined) deps.sessions.end(before);
      return signIn(deps, token, secure);
    }),
    route('GET', '/api/session', (request) => {
      const caller = guard(request, deps.sessions, deps.origin);
      return caller.ok ? { status: 200, body: whoIs(caller.session) } : caller.answer;
    }),
    route('DELETE', '/api/session', (request) => {
      const caller = guard(request, deps.sessions, deps.origin);
      if (!caller.ok) return caller.answer;
      deps.sessions.end(caller.session.id);
      return { status: 204, headers: { 'set-cookie': sessionCookie('', 0, secure) } };
    }),
    route('GET', '/api/dev-sign-ins', (request) => {
      const refused = originRefusal(request, deps.origin);
      if (refused !== undefined) return refused;
      const signIns = deps.devSignIns.map(({ label }, index) => ({ index, label }));
      return { status: 200, body: { signIns } };
    }),
  ];
}

/** The token a sign-in names, or the answer refusing it. */
function tokenOf(body: unknown, devSignIns: readonly DevSignIn[]): string | HttpResponse {
  const { token, devSignIn } = (body ?? {}) as { token?: unknown; devSignIn?: unknown };
  if (typeof devSignIn === 'number' && token === undefined) {
    const entry = Number.isInteger(devSignIn) ? devSignIns[devSignIn] : undefined;
    return (
      entry?.token ?? errorResponse(400, 'unknown_dev_sign_in', 'No such development sign-in.')
    );
  }
  if (typeof token === 'string' && token.length > 0 && token.length <= MAX_TOKEN_CHARS) {
    return token.trim();
  }
  return errorResponse(400, 'invalid_sign_in', 'Send {token}: your session token.');
}

async function signIn(deps: SessionRoutesDeps, token: string, secure: boolean) {
  const now = deps.now();
  const verified = await deps.verifier.verify(token, now);
  if (!verified.ok) return errorResponse(401, 'unauthorized', verified.publicMessage);
  const cap = now.getTime() + DEFAULT_MAX_SESSION_MS;
  const expiresAtMs = Math.min(tokenExpiryMs(token) ?? cap, cap);
  const session = deps.sessions.create(token, verified.value, expiresAtMs);
  if (session === undefined) {
    return errorResponse(503, 'too_many_sessions', 'Too many people are signed in; try later.');
  }
  const maxAge = Math.floor((expiresAtMs - now.getTime()) / 1000);
  return {
    status: 200,
    body: whoIs(session),
    headers: { 'set-cookie': sessionCookie(session.id, maxAge, secure) },
  };
}

/** Who a session is, for its page: never the token. */
function whoIs(session: ConsoleSession) {
  const { subject, tenant, roles } = session.principal;
  return {
    subject,
    tenant,
    roles,
    expiresAt: new Date(session.expiresAtMs).toISOString(),
    csrf: session.csrf,
  };
}
