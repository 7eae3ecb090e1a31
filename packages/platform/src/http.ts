/**
 * The process's HTTP server (node:http, or node:https given a certificate): `/healthz`, `/readyz`,
 * `/metrics`, plus the routes a service adds (the confirm stage's approval API, on a server of its
 * own). The health answers name the consumer group member the process is, when it says (its
 * instance, group and the partitions it holds now). Request bodies are JSON, bounded (64 KiB) and
 * decoded with the core's strict parser; every error answer is JSON `{error: {code, message}}`
 * and says nothing about internals.
 */
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { parseJsonBounded, SESSION_HEADER } from '@toolgate/shared';
import { Fault } from './fault.js';
import type { GroupMembership } from './group-membership.js';

/** Largest request body accepted, in bytes (64 KiB). */
export const MAX_BODY_BYTES = 64 * 1024;

/** Deepest JSON nesting accepted in a request body. */
export const MAX_BODY_DEPTH = 32;

/** HTTP methods a route may answer. */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** A request as a route handler sees it. */
export interface HttpRequest {
  readonly method: HttpMethod;
  /** The path without the query string. */
  readonly path: string;
  /** Values of the `:name` segments of the route's pattern, URI-decoded. */
  readonly params: Readonly<Record<string, string>>;
  readonly query: URLSearchParams;
  /** Header names in lower case. */
  readonly headers: IncomingHttpHeaders;
  /** The decoded JSON body; undefined when the request had none. */
  readonly body: unknown;
}

/** A route's answer; `body` is sent as JSON unless it is a string (sent as text). */
export interface HttpResponse {
  readonly status: number;
  readonly body?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

/**
 * A route's answer that stays open (a server-sent-events stream): the head is sent, then `open`
 * is given the stream to write to until the client goes away, the handler closes it or the server
 * stops (which closes every open stream first).
 */
export interface HttpStreamResponse {
  readonly status: number;
  readonly headers?: Readonly<Record<string, string>>;
  readonly open: (stream: HttpStream) => void;
}

/** An open response body. */
export interface HttpStream {
  /** Writes `chunk` (UTF-8); false when the stream is closed and nothing was written. */
  write(chunk: string): boolean;
  /** Bytes written but not yet taken by the client's connection. */
  readonly buffered: number;
  /** True once the stream is closed, by either side. */
  readonly closed: boolean;
  /** Ends the response and its connection. Idempotent. */
  close(): void;
  /** Runs `listener` once when the stream closes, whoever closed it (at once if it is closed). */
  onClose(listener: () => void): void;
}

/** Answers one route. A thrown retriable {@link Fault} answers 503, anything else 500. */
export type RouteHandler = (
  request: HttpRequest,
) => Promise<HttpResponse | HttpStreamResponse> | HttpResponse | HttpStreamResponse;

/** A route: method, a path pattern (`/confirmations/:id/approve`) and its handler. */
export interface Route {
  readonly method: HttpMethod;
  readonly path: string;
  readonly handler: RouteHandler;
}

/** An error answer in the shape every route gives: `{error: {code, message}}`. */
export function errorResponse(
  status: number,
  code: string,
  message: string,
  headers?: Readonly<Record<string, string>>,
): HttpResponse {
  return {
    status,
    body: { error: { code, message } },
    ...(headers === undefined ? {} : { headers }),
  };
}

/** Builds a {@link Route}. */
export function route(method: HttpMethod, path: string, handler: RouteHandler): Route {
  return { method, path, handler };
}

/**
 * The session token a request carries: the `toolgate-session` header, else
 * `Authorization: Bearer`; undefined when it carries neither.
 */
export function sessionTokenOf(headers: IncomingHttpHeaders): string | undefined {
  const own = headers[SESSION_HEADER];
  if (typeof own === 'string' && own !== '') return own;
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(headers.authorization ?? '');
  return bearer?.[1];
}

/** What `/metrics` serves (a {@link Metrics} fits). */
export interface MetricsSource {
  readonly contentType: string;
  render(): Promise<string>;
}

/** Options of {@link startHttpServer}. */
export interface HttpServerOptions {
  /** 0 picks a free port. */
  readonly port: number;
  /** Default `127.0.0.1`: the server is for the operator's network, not the world. */
  readonly host?: string;
  /** Served at `GET /metrics`; without it `/metrics` is 404. */
  readonly metrics?: MetricsSource;
  /** `GET /readyz` answers 200 while this is true, 503 otherwise. */
  readonly ready: () => boolean;
  /**
   * Added to the `/healthz` and `/readyz` answers beside `status`: which instance of which group
   * this is, and the partitions it holds now. Only for the operator's server: the approval API,
   * which approvers may reach, does not say it.
   */
  readonly membership?: () => GroupMembership;
  readonly routes?: readonly Route[];
  /** Handler failures are logged here (the answer itself says nothing). */
  readonly logger?: { error(fields: object, message: string): void };
  /** Serve HTTPS only, with this certificate (PEM, its chain after it) and private key (PEM). */
  readonly tls?: { readonly cert: Buffer | string; readonly key: Buffer | string };
  /**
   * Headers sent with every answer, the server's own errors and streams included (a web console's
   * security headers); a route's own headers of the same name win.
   */
  readonly headers?: Readonly<Record<string, string>>;
}

/** A listening server. */
export interface HttpServer {
  /** The port it listens on (the real one when 0 was asked for). */
  readonly port: number;
  /**
   * Stops listening, closes open streams and idle connections; resolves when all are closed.
   * Idempotent.
   */
  close(): Promise<void>;
}

/** An answer the server gives on its own behalf. */
class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
  }
}

/** Starts listening; rejects when the port cannot be bound. */
export async function startHttpServer(options: HttpServerOptions): Promise<HttpServer> {
  const routes = [...builtInRoutes(options), ...(options.routes ?? [])].map(compile);
  const streams: OpenStreams = { open: new Set(), stopping: false };
  const handler = (req: IncomingMessage, res: ServerResponse) =>
    void serve(req, res, routes, { ...options, streams });
  const { tls } = options;
  // An https.Server is an http.Server as far as listening, timeouts and closing go.
  const server =
    tls === undefined
      ? createServer(handler)
      : (createTlsServer(
          { cert: tls.cert, key: tls.key, minVersion: 'TLSv1.2' },
          handler,
        ) as unknown as Server);
  server.requestTimeout = 10_000;
  server.headersTimeout = 5_000;
  server.keepAliveTimeout = 5_000;
  const port = await listen(server, options.port, options.host ?? '127.0.0.1');
  let closing: Promise<void> | undefined;
  return {
    port,
    close: () =>
      (closing ??= (() => {
        // An open stream is never idle: end them, or closing would wait for their clients.
        streams.stopping = true;
        for (const stream of streams.open) stream.close();
        return closeServer(server);
      })()),
  };
}

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
  });
}

/**
 * The body of a health answer: `{status}`, then the member's `instanceId`, `groupId` and
 * `partitions` (topic → partition numbers) when the server was given them.
 */
function healthBody(status: string, membership?: () => GroupMembership): object {
  return membership === undefined ? { status } : { status, ...membership() };
}

function builtInRoutes(options: HttpServerOptions): Route[] {
  const { metrics, ready, membership } = options;
  const routes = [
    route('GET', '/healthz', () => ({ status: 200, body: healthBody('ok', membership) })),
    route('GET', '/readyz', () =>
      ready()
        ? { status: 200, body: healthBody('ready', membership) }
        : { status: 503, body: healthBody('not_ready', membership) },
    ),
  ];
  if (metrics !== undefined) {
    routes.push(
      route('GET', '/metrics', async () => ({
        status: 200,
        body: await metrics.render(),
        headers: { 'content-type': metrics.contentType },
      })),
    );
  }
  return routes;
}

interface CompiledRoute extends Route {
  /** Literal segments as strings, parameters as `{ name }`. */
  readonly segments: readonly (string | { readonly name: string })[];
}

function compile(r: Route): CompiledRoute {
  const segments = r.path
    .split('/')
    .slice(1)
    .map((s) => (s.startsWith(':') ? { name: s.slice(1) } : s));
  return { ...r, segments };
}

/** The params of `path` when it matches the route's pattern, else undefined. */
function match(r: CompiledRoute, parts: readonly string[]): Record<string, string> | undefined {
  if (parts.length !== r.segments.length) return undefined;
  const params: Record<string, string> = {};
  for (const [i, segment] of r.segments.entries()) {
    const part = parts[i] ?? '';
    if (typeof segment === 'string') {
      if (segment !== part) return undefined;
    } else {
      if (part === '') return undefined;
      params[segment.name] = decodeSegment(part);
    }
  }
  return params;
}

function decodeSegment(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    throw new HttpError(400, 'bad_path', 'The path is not validly encoded.');
  }
}

async function serve(
  req: IncomingMessage,
  res: ServerResponse,
  routes: readonly CompiledRoute[],
  options: HttpServerOptions & { readonly streams: OpenStreams },
): Promise<void> {
  req.on('error', () => res.destroy());
  try {
    const answer = await dispatch(req, routes);
    if ('open' in answer && options.streams.stopping) throw stopping();
    if ('open' in answer)
      openStream(res, withHeaders(answer, options.headers), options.streams.open);
    else send(res, answer.status, answer.body, { ...options.headers, ...answer.headers });
  } catch (error) {
    sendError(res, error, req, options);
  }
}

async function dispatch(
  req: IncomingMessage,
  routes: readonly CompiledRoute[],
): Promise<HttpResponse | HttpStreamResponse> {
  const url = new URL(req.url ?? '/', 'http://localhost');
  const parts = url.pathname.split('/').slice(1);
  const matching = routes.flatMap((r) => {
    const params = match(r, parts);
    return params === undefined ? [] : [{ r, params }];
  });
  if (matching.length === 0) throw new HttpError(404, 'not_found', 'No such resource.');
  const chosen = matching.find(({ r }) => r.method === req.method);
  if (chosen === undefined) {
    const allow = [...new Set(matching.map(({ r }) => r.method))].join(', ');
    throw new HttpError(405, 'method_not_allowed', 'Method not allowed here.', { allow });
  }
  const body = await readBody(req);
  return chosen.r.handler({
    method: chosen.r.method,
    path: url.pathname,
    params: chosen.params,
    query: url.searchParams,
    headers: req.headers,
    body,
  });
}

/** Reads and decodes a JSON body within {@link MAX_BODY_BYTES}; undefined when there is none. */
async function readBody(req: IncomingMessage): Promise<unknown> {
  if (Number(req.headers['content-length'] ?? 0) > MAX_BODY_BYTES) throw tooLarge();
  const bytes = await collect(req);
  if (bytes.length === 0) return undefined;
  if (!/^application\/json\s*(;|$)/i.test(req.headers['content-type'] ?? '')) {
    throw new HttpError(415, 'unsupported_media_type', 'The body must be application/json.');
  }
  const parsed = parseJsonBounded(bytes.toString('utf8'), {
    maxBytes: MAX_BODY_BYTES,
    maxDepth: MAX_BODY_DEPTH,
  });
  if (!parsed.ok) throw new HttpError(400, parsed.code, 'The body is not acceptable JSON.');
  return parsed.value;
}

/**
 * Collects the body, stopping at the bound. Listeners rather than `for await`: leaving that loop
 * early destroys the socket, and the 413 answer could no longer be sent.
 */
function collect(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) return void chunks.push(chunk);
      req.off('data', onData);
      req.pause();
      reject(tooLarge());
    };
    req.on('data', onData);
    req.once('end', () => resolve(Buffer.concat(chunks)));
    req.once('error', reject);
  });
}

function tooLarge(): HttpError {
  return new HttpError(413, 'body_too_large', `The body exceeds ${MAX_BODY_BYTES} bytes.`, {
    connection: 'close',
  });
}

function sendError(
  res: ServerResponse,
  error: unknown,
  req: IncomingMessage,
  options: HttpServerOptions,
): void {
  const common = options.headers ?? {};
  if (error instanceof HttpError) {
    const { status, code, message } = error;
    send(res, status, { error: { code, message } }, { ...common, ...error.headers });
    // The rest of an oversized body is not read: close rather than drain it.
    if (error.status === 413) res.once('finish', () => req.destroy());
    return;
  }
  options.logger?.error({ err: error, method: req.method, path: req.url }, 'http handler failed');
  if (error instanceof Fault && error.retriable) {
    send(
      res,
      503,
      { error: { code: 'unavailable', message: 'Try again shortly.' } },
      { ...common, 'retry-after': '1' },
    );
    return;
  }
  send(res, 500, { error: { code: 'internal_error', message: 'Something went wrong.' } }, common);
}

function send(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Readonly<Record<string, string>> = {},
): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const text = typeof body === 'string' ? body : body === undefined ? '' : JSON.stringify(body);
  res.writeHead(status, {
    ...(body === undefined ? {} : { 'content-type': contentTypeOf(body) }),
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    'content-length': String(Buffer.byteLength(text)),
    ...headers,
  });
  res.end(text);
}

function withHeaders(
  answer: HttpStreamResponse,
  common: Readonly<Record<string, string>> | undefined,
): HttpStreamResponse {
  return common === undefined ? answer : { ...answer, headers: { ...common, ...answer.headers } };
}

/** The streams a server has open, and whether it is stopping (it opens no more then). */
interface OpenStreams {
  readonly open: Set<HttpStream>;
  stopping: boolean;
}

function stopping(): HttpError {
  return new HttpError(503, 'unavailable', 'The server is stopping.', { 'retry-after': '1' });
}

/** Sends the head of `answer` and hands its body to `answer.open`, tracked in `streams`. */
function openStream(
  res: ServerResponse,
  answer: HttpStreamResponse,
  streams: Set<HttpStream>,
): void {
  // The client may have gone while the handler ran: there is nothing to open.
  if (res.socket === null || res.socket.destroyed) return;
  const listeners: (() => void)[] = [];
  let closed = false;
  const stream: HttpStream = {
    write: (chunk) => !closed && (res.write(chunk), true),
    get buffered() {
      return res.writableLength;
    },
    get closed() {
      return closed;
    },
    close: () => {
      if (!closed) res.end();
      finish();
    },
    onClose: (listener) => (closed ? listener() : void listeners.push(listener)),
  };
  const finish = () => {
    if (closed) return;
    closed = true;
    streams.delete(stream);
    for (const listener of listeners.splice(0)) listener();
  };
  res.once('close', finish);
  res.writeHead(answer.status, {
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    // The connection ends with the stream, so closing the server never waits on it.
    connection: 'close',
    ...answer.headers,
  });
  res.flushHeaders();
  streams.add(stream);
  answer.open(stream);
}

function contentTypeOf(body: unknown): string {
  return typeof body === 'string' ? 'text/plain; charset=utf-8' : 'application/json; charset=utf-8';
}
