/** Server-sent events as the console writes them. */

/** Default time between heartbeat comments, in ms. */
export const HEARTBEAT_MS = 15_000;

/** One event; JSON never holds a raw newline, so `data` is one line. */
export function sseEvent(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** The headers of an event stream. */
export const SSE_HEADERS = { 'content-type': 'text/event-stream; charset=utf-8' } as const;
