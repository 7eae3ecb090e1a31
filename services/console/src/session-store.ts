/**
 * The console's sessions, in memory: a random id (the cookie) names the person's session token,
 * what it verified to, when it expires and the CSRF token their page must echo. The token itself
 * never leaves the server: not in a URL, a page, a script-visible place or an answer.
 */
import { randomBytes } from 'node:crypto';
import type { Principal } from '@toolgate/shared';

/** Default most sessions held at once. */
export const DEFAULT_MAX_SESSIONS = 1000;

/** Default longest session, in ms, when the token itself names no expiry (12 h). */
export const DEFAULT_MAX_SESSION_MS = 12 * 60 * 60 * 1000;

/** One signed-in person. */
export interface ConsoleSession {
  readonly id: string;
  /** The session token, sent upstream as `Authorization: Bearer`. */
  readonly token: string;
  readonly principal: Principal;
  /** Epoch ms; the session ends then. */
  readonly expiresAtMs: number;
  /** What the page sends in `x-toolgate-csrf` with every change. */
  readonly csrf: string;
}

/** The sessions of one console. */
export interface SessionStore {
  /** A new session, or undefined when {@link DEFAULT_MAX_SESSIONS} live sessions exist. */
  create(token: string, principal: Principal, expiresAtMs: number): ConsoleSession | undefined;
  /** The live session `id` names; undefined once it expired or ended. */
  get(id: string | undefined): ConsoleSession | undefined;
  /** Ends a session. */
  end(id: string): void;
  /** Live sessions now. */
  readonly size: number;
}

/** Options of {@link createSessionStore}. */
export interface SessionStoreOptions {
  readonly now: () => number;
  readonly maxSessions?: number;
}

/** A store whose sessions end at their token's expiry, at most `maxSessions` at once. */
export function createSessionStore(options: SessionStoreOptions): SessionStore {
  const max = options.maxSessions ?? DEFAULT_MAX_SESSIONS;
  const sessions = new Map<string, ConsoleSession>();
  const live = (s: ConsoleSession) => s.expiresAtMs > options.now();
  const sweep = () => {
    for (const [id, s] of sessions) if (!live(s)) sessions.delete(id);
  };
  return {
    create(token, principal, expiresAtMs) {
      if (sessions.size >= max) sweep();
      if (sessions.size >= max) return undefined;
      const session = { id: randomId(), token, principal, expiresAtMs, csrf: randomId() };
      sessions.set(session.id, session);
      return session;
    },
    get(id) {
      const session = id === undefined ? undefined : sessions.get(id);
      if (session === undefined || live(session)) return session;
      sessions.delete(session.id);
      return undefined;
    },
    end: (id) => void sessions.delete(id),
    get size() {
      sweep();
      return sessions.size;
    },
  };
}

/** 256 random bits, base64url. */
function randomId(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * The expiry (epoch ms) a JWT names in `exp`, or undefined when it names none. Read only after
 * the token verified: this trusts the payload.
 */
export function tokenExpiryMs(token: string): number | undefined {
  const payload = token.split('.')[1];
  if (payload === undefined) return undefined;
  try {
    const exp = (
      JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { exp?: unknown }
    ).exp;
    return typeof exp === 'number' && Number.isFinite(exp) ? exp * 1000 : undefined;
  } catch {
    return undefined;
  }
}
