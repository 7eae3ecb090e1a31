/**
 * What protects the console's pages and API in a browser: security headers on every answer, the
 * session cookie, the origin the console is reached at, and the CSRF check of every change.
 */
import { timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { errorResponse, type HttpRequest, type HttpResponse } from '@toolgate/platform';
import type { ConsoleSession, SessionStore } from './session-store.js';

/** The session cookie's name. */
export const SESSION_COOKIE = 'toolgate_console';

/** The header a page echoes its session's CSRF token in. */
export const CSRF_HEADER = 'x-toolgate-csrf';

/**
 * Scripts, styles, images and connections from the console itself only; no inline script or
 * style, no plugin, no framing, no base or form target elsewhere.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** Headers on every answer of the console. */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
};

/** Where the console is reached, as its configuration says. */
export interface ConsoleOrigin {
  /** The configured public origin (`https://console.example.com`); empty when reached directly. */
  readonly publicOrigin: string;
  /** The address it binds to (TOOLGATE_CONSOLE_HOST). */
  readonly bindHost: string;
}

const LOOPBACK_NAMES = new Set(['127.0.0.1', 'localhost', '[::1]']);

/**
 * The console's own origin for a request, or undefined when the request names a host the console
 * is not reached at (a rebound DNS name): such requests are refused before anything else.
 */
export function ownOriginOf(
  headers: IncomingHttpHeaders,
  where: ConsoleOrigin,
): string | undefined {
  const host = headers.host ?? '';
  if (where.publicOrigin !== '') {
    return new URL(where.publicOrigin).host === host ? where.publicOrigin : undefined;
  }
  const name = host.replace(/:[0-9]+$/, '');
  const bound = where.bindHost.includes(':') ? `[${where.bindHost}]` : where.bindHost;
  return LOOPBACK_NAMES.has(name) || name === bound ? `http://${host}` : undefined;
}

/** True when the console is served over https (its cookie is then Secure). */
export function servedOverHttps(where: ConsoleOrigin): boolean {
  return where.publicOrigin.startsWith('https://');
}

/** The value of cookie `name` in a request's headers. */
export function cookieOf(headers: IncomingHttpHeaders, name: string): string | undefined {
  for (const part of (headers.cookie ?? '').split(';')) {
    const [key, ...rest] = part.trim().split('=');
    if (key === name) return rest.join('=');
  }
  return undefined;
}

/** The `set-cookie` value of a session that lasts `maxAgeSeconds` (0 clears it). */
export function sessionCookie(id: string, maxAgeSeconds: number, secure: boolean): string {
  const flags = ['HttpOnly', 'SameSite=Strict', 'Path=/', `Max-Age=${Math.max(0, maxAgeSeconds)}`];
  return [`${SESSION_COOKIE}=${id}`, ...flags, ...(secure ? ['Secure'] : [])].join('; ');
}

/** A request's session, or the answer refusing it. */
export type Guarded =
  | { readonly ok: true; readonly session: ConsoleSession }
  | { readonly ok: false; readonly answer: HttpResponse };

/**
 * The session of `request`: 401 without a live one; for anything but GET, 403 unless the request
 * carries the session's CSRF token and any Origin it names is the console's own.
 */
export function guard(request: HttpRequest, sessions: SessionStore, where: ConsoleOrigin): Guarded {
  const refused = originRefusal(request, where);
  if (refused !== undefined) return { ok: false, answer: refused };
  const session = sessions.get(cookieOf(request.headers, SESSION_COOKIE));
  if (session === undefined) {
    return { ok: false, answer: errorResponse(401, 'unauthorized', 'Sign in.') };
  }
  if (request.method !== 'GET' && !sameSecret(request.headers[CSRF_HEADER], session.csrf)) {
    const answer = errorResponse(403, 'csrf', 'The request lacks this session’s CSRF token.');
    return { ok: false, answer };
  }
  return { ok: true, session };
}

/** True when `given` is `secret`, compared in constant time. */
function sameSecret(given: string | string[] | undefined, secret: string): boolean {
  if (typeof given !== 'string') return false;
  const a = Buffer.from(given);
  const b = Buffer.from(secret);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** 403 when the request names a host or an Origin that is not the console's own. */
export function originRefusal(
  request: HttpRequest,
  where: ConsoleOrigin,
): HttpResponse | undefined {
  const own = ownOriginOf(request.headers, where);
  if (own === undefined) {
    return errorResponse(403, 'foreign_host', 'The console is not reached at this host.');
  }
  const origin = request.headers.origin;
  if (request.method !== 'GET' && origin !== undefined && origin !== own) {
    return errorResponse(403, 'foreign_origin', 'Requests from other sites are refused.');
  }
  return undefined;
}
