/**
 * One request to the approval API over node:http or node:https: node's `fetch` cannot be told to
 * trust a CA of the caller's choosing, and an approval API with a certificate from a private CA is
 * the ordinary case. Resolves with the status and the whole body; rejects with the transport's
 * error (its `code`, e.g. ECONNREFUSED or DEPTH_ZERO_SELF_SIGNED_CERT), marking an answer that
 * was cut off with `brokenOff`.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';

/** A request to send. */
export interface ApprovalRequest {
  readonly url: string;
  readonly method: 'GET' | 'POST';
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
  /** PEM of CA certificates to trust for an https URL, besides the system's. */
  readonly ca?: Buffer;
  readonly timeoutMs: number;
}

/** The answer: status and body text. */
export interface ApprovalAnswer {
  readonly status: number;
  readonly text: string;
}

/** A transport failure; `brokenOff` when it came after the status, while reading the body. */
export class TransportError extends Error {
  constructor(
    readonly reason: string,
    readonly brokenOff: boolean,
    options?: { cause?: unknown },
  ) {
    super(reason, options);
  }
}

/** Sends `r` and reads the whole answer within `r.timeoutMs`. */
export function sendRequest(r: ApprovalRequest): Promise<ApprovalAnswer> {
  return new Promise((resolve, reject) => {
    let answered = false;
    const fail = (cause: unknown) => {
      clearTimeout(timer);
      reject(new TransportError(reasonOf(cause, r.timeoutMs), answered, { cause }));
    };
    const onResponse = (response: IncomingMessage) => {
      answered = true;
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.once('error', fail);
      response.once('aborted', () => fail(new Error('the connection closed mid-answer')));
      response.once('end', () => {
        if (!response.complete) return fail(new Error('the connection closed mid-answer'));
        clearTimeout(timer);
        resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') });
      });
    };
    const options = {
      method: r.method,
      headers: {
        ...r.headers,
        ...(r.body === undefined ? {} : { 'content-length': String(Buffer.byteLength(r.body)) }),
      },
    };
    const req = r.url.startsWith('https:')
      ? httpsRequest(r.url, { ...options, ...(r.ca === undefined ? {} : { ca: r.ca }) }, onResponse)
      : httpRequest(r.url, options, onResponse);
    const timer = setTimeout(() => {
      const timeout = Object.assign(new Error('timeout'), { code: 'TIMEOUT' });
      req.destroy(timeout);
      fail(timeout);
    }, r.timeoutMs);
    req.once('error', fail);
    req.end(r.body);
  });
}

function reasonOf(cause: unknown, timeoutMs: number): string {
  const e = cause as { code?: unknown; message?: unknown } | null;
  if (e?.code === 'TIMEOUT') return `no answer within ${timeoutMs} ms`;
  if (typeof e?.code === 'string') return e.code;
  return typeof e?.message === 'string' ? e.message : String(cause);
}
