/**
 * `GET /api/analytics/stream`: the analytics service's stream, read with the caller's token and
 * relayed as it comes. It ends when the upstream stream ends or the console session does
 * (`event: session_ended`); an upstream that refuses or cannot be reached is answered as JSON.
 */
import type { HttpResponse, HttpStream, HttpStreamResponse } from '@toolgate/platform';
import type { ConsoleSession, SessionStore } from './session-store.js';
import { HEARTBEAT_MS, SSE_HEADERS, sseEvent } from './sse.js';
import type { Upstream } from './upstream.js';

/** What the analytics stream uses. */
export interface AnalyticsStreamDeps {
  readonly analytics: Upstream;
  readonly sessions: SessionStore;
  /** How often the session is checked, in ms; default {@link HEARTBEAT_MS}. */
  readonly checkMs?: number;
}

/** Opens the upstream stream for `session`; the relay, or the answer upstream gave instead. */
export async function analyticsStream(
  deps: AnalyticsStreamDeps,
  session: ConsoleSession,
  query: URLSearchParams,
): Promise<HttpStreamResponse | HttpResponse> {
  const abort = new AbortController();
  const search = query.toString();
  const path = `/analytics/stream${search === '' ? '' : `?${search}`}`;
  const upstream = await deps.analytics.open(path, session.token, abort.signal);
  if (!(upstream instanceof Response)) return upstream;
  return {
    status: 200,
    headers: SSE_HEADERS,
    open: (stream) => void relay(deps, session, upstream, stream, abort),
  };
}

async function relay(
  deps: AnalyticsStreamDeps,
  session: ConsoleSession,
  upstream: Response,
  stream: HttpStream,
  abort: AbortController,
): Promise<void> {
  const check = setInterval(() => {
    if (deps.sessions.get(session.id) !== undefined) return;
    stream.write(sseEvent('session_ended', { message: 'The session ended; sign in again.' }));
    stream.close();
  }, deps.checkMs ?? HEARTBEAT_MS);
  stream.onClose(() => {
    clearInterval(check);
    abort.abort();
  });
  const decoder = new TextDecoder();
  try {
    for await (const chunk of upstream.body ?? []) {
      if (!stream.write(decoder.decode(chunk as Uint8Array, { stream: true }))) break;
    }
  } catch {
    // The upstream went away or the client did (abort): either way the relay ends here.
  } finally {
    stream.close();
  }
}
