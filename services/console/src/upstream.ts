/**
 * Calls to the approval API and the analytics API with the signed-in person's token, server-side.
 * Their answers come back as the console's own: the upstream's JSON error as it gave it, any other
 * failure as a clear JSON error, and an upstream that cannot be reached as 502.
 */
import { errorResponse, type HttpResponse } from '@toolgate/platform';

/** Default time an upstream call may take, in ms. */
export const DEFAULT_UPSTREAM_TIMEOUT_MS = 10_000;

/** One API the console calls. */
export interface Upstream {
  /** What the console calls it in messages (`the approval API`). */
  readonly name: string;
  /** Calls `path` (with its query) as `token`; never throws. */
  call(method: 'GET' | 'POST', path: string, token: string, body?: unknown): Promise<HttpResponse>;
  /** Opens `path` as a stream as `token`; the response, or the answer to give instead. */
  open(path: string, token: string, signal: AbortSignal): Promise<Response | HttpResponse>;
}

/** Options of {@link createUpstream}. */
export interface UpstreamOptions {
  readonly name: string;
  /** Its base URL, `http://127.0.0.1:9110`. */
  readonly baseUrl: string;
  readonly timeoutMs?: number;
  readonly logger?: { warn(fields: object, message: string): void };
}

/** An upstream at `baseUrl`. */
export function createUpstream(options: UpstreamOptions): Upstream {
  const base = options.baseUrl.replace(/\/+$/, '');
  const unreachable = (error: unknown) => {
    options.logger?.warn({ err: error, upstream: base }, `${options.name} unreachable`);
    return errorResponse(
      502,
      'upstream_unreachable',
      `${capitalised(options.name)} cannot be reached.`,
    );
  };
  return {
    name: options.name,
    async call(method, path, token, body) {
      try {
        const response = await fetch(base + path, {
          method,
          headers: {
            authorization: `Bearer ${token}`,
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
          signal: AbortSignal.timeout(options.timeoutMs ?? DEFAULT_UPSTREAM_TIMEOUT_MS),
        });
        return await answerOf(response, options.name);
      } catch (error) {
        return unreachable(error);
      }
    },
    async open(path, token, signal) {
      try {
        const response = await fetch(base + path, {
          headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' },
          signal,
        });
        return response.ok && response.body !== null
          ? response
          : await answerOf(response, options.name);
      } catch (error) {
        return unreachable(error);
      }
    },
  };
}

/** An upstream's answer as the console's: its JSON as is, else a JSON error naming its status. */
async function answerOf(response: Response, name: string): Promise<HttpResponse> {
  const text = await response.text();
  const body = jsonOf(text);
  if (body !== undefined && (response.ok || isErrorBody(body))) {
    return { status: response.status, body };
  }
  if (response.ok) return { status: response.status, body: {} };
  return errorResponse(
    response.status >= 500 ? 502 : response.status,
    response.status === 404 ? 'not_found' : 'upstream_error',
    `${capitalised(name)} answered ${response.status}.`,
  );
}

function jsonOf(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function isErrorBody(body: unknown): boolean {
  const error = (body as { error?: { code?: unknown; message?: unknown } } | null)?.error;
  return typeof error?.code === 'string' && typeof error.message === 'string';
}

function capitalised(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
