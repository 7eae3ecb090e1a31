/**
 * `GET /api/pending/stream`: the caller's waiting confirmations as server-sent events. The console
 * polls the approval API for this session every second and sends `event: pending` with the list
 * whenever it changed (first at once), `event: upstream_error` when the API fails (once per
 * failure), heartbeat comments, and `event: session_ended` before it closes when the session ends.
 */
import type { HttpStream, HttpStreamResponse } from '@toolgate/platform';
import { readPending } from './pending-list.js';
import type { ConsoleSession, SessionStore } from './session-store.js';
import { HEARTBEAT_MS, SSE_HEADERS, sseEvent } from './sse.js';
import type { Upstream } from './upstream.js';

/** Default time between polls of the approval API, in ms. */
export const PENDING_POLL_MS = 1000;

/** What the pending stream uses. */
export interface PendingStreamDeps {
  readonly approval: Upstream;
  readonly sessions: SessionStore;
  readonly pollMs?: number;
  readonly heartbeatMs?: number;
}

/** The stream of `session`'s waiting confirmations. */
export function pendingStream(
  deps: PendingStreamDeps,
  session: ConsoleSession,
): HttpStreamResponse {
  return {
    status: 200,
    headers: SSE_HEADERS,
    open: (stream) => followPending(deps, session, stream),
  };
}

function followPending(deps: PendingStreamDeps, session: ConsoleSession, stream: HttpStream): void {
  let last = '';
  let polling = false;
  const poll = async () => {
    if (polling || stream.closed) return;
    if (deps.sessions.get(session.id) === undefined) {
      stream.write(sseEvent('session_ended', { message: 'The session ended; sign in again.' }));
      return stream.close();
    }
    polling = true;
    try {
      const read = await readPending(deps.approval, session.token);
      const event = read.ok
        ? sseEvent('pending', read.list)
        : sseEvent('upstream_error', read.answer.body);
      if (event !== last) stream.write(event);
      last = event;
    } finally {
      polling = false;
    }
  };
  const poller = setInterval(() => void poll(), deps.pollMs ?? PENDING_POLL_MS);
  const heartbeat = setInterval(
    () => stream.write(': heartbeat\n\n'),
    deps.heartbeatMs ?? HEARTBEAT_MS,
  );
  stream.onClose(() => {
    clearInterval(poller);
    clearInterval(heartbeat);
  });
  stream.write(': open\n\n');
  void poll();
}
