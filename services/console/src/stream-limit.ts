/**
 * How many event streams one session may hold open at once (a page holds one; a few tabs a few).
 * Each pending stream polls the approval API, so their number is bounded per person.
 */
import type { HttpStream, HttpStreamResponse } from '@toolgate/platform';
import { sseEvent } from './sse.js';

/** Default most streams open at once per session. */
export const MAX_STREAMS_PER_SESSION = 4;

/** Counts the open streams of each session. */
export interface StreamLimit {
  /**
   * `answer` counted against `sessionId` while it is open: one over the limit sends
   * `event: too_many_streams` and closes at once.
   */
  limit(sessionId: string, answer: HttpStreamResponse): HttpStreamResponse;
}

/** A limit of `max` open streams per session. */
export function createStreamLimit(max: number = MAX_STREAMS_PER_SESSION): StreamLimit {
  const open = new Map<string, number>();
  const release = (id: string) => {
    const left = (open.get(id) ?? 1) - 1;
    if (left === 0) open.delete(id);
    else open.set(id, left);
  };
  return {
    limit: (sessionId, answer) => ({
      ...answer,
      // Counted once open: a client gone before its stream opened holds nothing.
      open: (stream: HttpStream) => {
        const count = (open.get(sessionId) ?? 0) + 1;
        open.set(sessionId, count);
        stream.onClose(() => release(sessionId));
        if (count <= max) return answer.open(stream);
        stream.write(
          sseEvent('too_many_streams', { message: 'Close another tab of the console.' }),
        );
        stream.close();
      },
    }),
  };
}
