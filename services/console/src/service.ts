/**
 * The console as a server, owning no connection but its listening socket, so that tests start it
 * in-process: the session, API and static routes behind one HTTP server with the console's
 * security headers on every answer.
 */
import { startHttpServer, type HttpServer } from '@toolgate/platform';
import type { SessionVerifier } from '@toolgate/shared';
import { apiRoutes } from './api-routes.js';
import type { DevSignIn } from './dev-sign-ins.js';
import { sessionRoutes } from './session-routes.js';
import { createSessionStore, type SessionStore } from './session-store.js';
import { staticRoutes } from './static-routes.js';
import { createUpstream } from './upstream.js';
import { SECURITY_HEADERS, type ConsoleOrigin } from './web-guard.js';

/** The service name in logs. */
export const SERVICE = 'console';

/** Options of {@link startConsole}. */
export interface ConsoleOptions {
  /** 0 picks a free port. */
  readonly port: number;
  /** Default `127.0.0.1`. */
  readonly host?: string;
  /** The public origin when a proxy serves the console; default none (reached directly). */
  readonly publicOrigin?: string;
  readonly approvalUrl: string;
  readonly analyticsUrl: string;
  /** Verifies the session tokens people sign in with (the deployment's session keys). */
  readonly verifier: Pick<SessionVerifier, 'verify'>;
  readonly devSignIns?: readonly DevSignIn[];
  readonly now?: () => Date;
  readonly maxSessions?: number;
  /** Time between polls of the pending stream, in ms (default 1000). */
  readonly pendingPollMs?: number;
  readonly logger?: {
    error(fields: object, message: string): void;
    warn(fields: object, message: string): void;
  };
}

/** A running console. */
export interface RunningConsole {
  readonly port: number;
  /** Where people open it, `http://127.0.0.1:9120/`. */
  readonly url: string;
  readonly sessions: SessionStore;
  /** Stops listening and ends open streams. Idempotent. */
  close(): Promise<void>;
}

/** Starts the console; rejects when its port cannot be bound. */
export async function startConsole(options: ConsoleOptions): Promise<RunningConsole> {
  const now = options.now ?? (() => new Date());
  const host = options.host ?? '127.0.0.1';
  const origin: ConsoleOrigin = { publicOrigin: options.publicOrigin ?? '', bindHost: host };
  const sessions = createSessionStore({
    now: () => now().getTime(),
    ...(options.maxSessions === undefined ? {} : { maxSessions: options.maxSessions }),
  });
  const logger = options.logger === undefined ? {} : { logger: options.logger };
  const approval = createUpstream({
    name: 'the approval API',
    baseUrl: options.approvalUrl,
    ...logger,
  });
  const analytics = createUpstream({
    name: 'the analytics API',
    baseUrl: options.analyticsUrl,
    ...logger,
  });
  const server: HttpServer = await startHttpServer({
    port: options.port,
    host,
    ready: () => true,
    headers: SECURITY_HEADERS,
    ...logger,
    routes: [
      ...sessionRoutes({
        sessions,
        verifier: options.verifier,
        devSignIns: options.devSignIns ?? [],
        origin,
        now,
      }),
      ...apiRoutes({
        sessions,
        origin,
        approval,
        analytics,
        ...(options.pendingPollMs === undefined ? {} : { pendingPollMs: options.pendingPollMs }),
      }),
      ...staticRoutes(origin),
    ],
  });
  const shownHost = host.includes(':') ? `[${host}]` : host;
  const url = options.publicOrigin || `http://${shownHost}:${server.port}`;
  return {
    port: server.port,
    url: `${url.replace(/\/$/, '')}/`,
    sessions,
    close: () => server.close(),
  };
}
