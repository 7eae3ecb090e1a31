import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { Fault } from './fault.js';
import {
  MAX_BODY_BYTES,
  route,
  sessionTokenOf,
  startHttpServer,
  type HttpServer,
  type HttpServerOptions,
} from './http.js';

const servers: HttpServer[] = [];

afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function start(options: Partial<HttpServerOptions> = {}) {
  const server = await startHttpServer({ port: 0, ready: () => true, ...options });
  servers.push(server);
  const base = `http://127.0.0.1:${server.port}`;
  const call = async (path: string, init?: RequestInit) => {
    const res = await fetch(base + path, init);
    const text = await res.text();
    const json =
      text !== '' && res.headers.get('content-type')?.startsWith('application/json')
        ? (JSON.parse(text) as unknown)
        : undefined;
    return { status: res.status, headers: res.headers, text, json };
  };
  return { server, call };
}

const post = (body: string, type = 'application/json'): RequestInit => ({
  method: 'POST',
  body,
  headers: { 'content-type': type },
});

describe('startHttpServer', () => {
  it('answers /healthz while the process runs', async () => {
    const { call } = await start({ ready: () => false });
    expect(await call('/healthz')).toMatchObject({ status: 200, json: { status: 'ok' } });
  });

  it('answers /readyz 200 only while ready() is true', async () => {
    let ready = false;
    const { call } = await start({ ready: () => ready });
    expect(await call('/readyz')).toMatchObject({ status: 503, json: { status: 'not_ready' } });
    ready = true;
    expect(await call('/readyz')).toMatchObject({ status: 200, json: { status: 'ready' } });
  });

  it('names the instance, its group and the partitions it holds in /healthz and /readyz', async () => {
    let held: Readonly<Record<string, readonly number[]>> = {};
    let ready = false;
    const { call } = await start({
      ready: () => ready,
      membership: () => ({ instanceId: 'host-1', groupId: 'toolgate.authorize', partitions: held }),
    });
    expect(await call('/readyz')).toMatchObject({
      status: 503,
      json: {
        status: 'not_ready',
        instanceId: 'host-1',
        groupId: 'toolgate.authorize',
        partitions: {},
      },
    });
    held = { 'toolgate.validated': [0, 2, 4] };
    ready = true;
    const member = {
      instanceId: 'host-1',
      groupId: 'toolgate.authorize',
      partitions: { 'toolgate.validated': [0, 2, 4] },
    };
    expect((await call('/readyz')).json).toEqual({ status: 'ready', ...member });
    expect((await call('/healthz')).json).toEqual({ status: 'ok', ...member });
  });

  it('answers only the status when it is given no membership', async () => {
    const { call } = await start();
    expect((await call('/healthz')).json).toEqual({ status: 'ok' });
    expect((await call('/readyz')).json).toEqual({ status: 'ready' });
  });

  it('serves the metrics text, and no /metrics without a source', async () => {
    const metrics = {
      contentType: 'text/plain; version=0.0.4',
      render: () => Promise.resolve('m 1\n'),
    };
    const withMetrics = await start({ metrics });
    const res = await withMetrics.call('/metrics');
    expect(res).toMatchObject({ status: 200, text: 'm 1\n' });
    expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4');
    expect((await (await start()).call('/metrics')).status).toBe(404);
  });

  it('routes by method and pattern, with decoded params, query and JSON body', async () => {
    const seen: unknown[] = [];
    const routes = [
      route('POST', '/confirmations/:id/approve', (r) => {
        seen.push({ params: r.params, tenant: r.query.get('tenant'), body: r.body });
        return { status: 202, body: { accepted: r.params['id'] } };
      }),
    ];
    const { call } = await start({ routes });
    const res = await call('/confirmations/c%2F1/approve?tenant=acme', post('{"digest":"d"}'));
    expect(res).toMatchObject({ status: 202, json: { accepted: 'c/1' } });
    expect(seen).toEqual([{ params: { id: 'c/1' }, tenant: 'acme', body: { digest: 'd' } }]);
  });

  it('answers unknown paths 404 and other methods 405 with Allow, as JSON', async () => {
    const { call } = await start({ routes: [route('POST', '/x', () => ({ status: 204 }))] });
    expect(await call('/nope')).toMatchObject({
      status: 404,
      json: { error: { code: 'not_found' } },
    });
    const wrong = await call('/x');
    expect(wrong).toMatchObject({ status: 405, json: { error: { code: 'method_not_allowed' } } });
    expect(wrong.headers.get('allow')).toBe('POST');
  });

  it('refuses a body over 64 KiB with 413, declared or streamed, without calling the handler', async () => {
    let called = 0;
    const { server, call } = await start({
      routes: [route('POST', '/x', () => ({ status: 200, body: ++called }))],
    });
    const big = `{"a":"${'x'.repeat(MAX_BODY_BYTES)}"}`;
    expect(await call('/x', post(big))).toMatchObject({
      status: 413,
      json: { error: { code: 'body_too_large' } },
    });
    const streamed = await new Promise<number>((resolve, reject) => {
      const req = request(
        {
          port: server.port,
          host: '127.0.0.1',
          path: '/x',
          method: 'POST',
          headers: { 'content-type': 'application/json' },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      for (let i = 0; i < 20; i++) req.write('x'.repeat(8 * 1024));
      req.end();
    });
    expect(streamed).toBe(413);
    expect(called).toBe(0);
  });

  it('accepts a body of exactly 64 KiB', async () => {
    const { call } = await start({ routes: [route('POST', '/x', () => ({ status: 204 }))] });
    const exact = `"${'x'.repeat(MAX_BODY_BYTES - 2)}"`;
    expect((await call('/x', post(exact))).status).toBe(204);
  });

  it('refuses a body that is not JSON by type (415) or by content (400, with the parser code)', async () => {
    const { call } = await start({ routes: [route('POST', '/x', () => ({ status: 204 }))] });
    expect(await call('/x', post('{}', 'text/plain'))).toMatchObject({ status: 415 });
    expect(await call('/x', post('{"a":1,"a":2}'))).toMatchObject({
      status: 400,
      json: { error: { code: 'duplicate_key' } },
    });
    expect(await call('/x', post('{"a":'))).toMatchObject({
      status: 400,
      json: { error: { code: 'truncated' } },
    });
    expect(await call('/x', post('{"__proto__":{}}'))).toMatchObject({ status: 400 });
  });

  it('answers 503 with Retry-After for a retriable fault, and 500 without details for anything else', async () => {
    const logged: unknown[] = [];
    const routes = [
      route('GET', '/down', () => {
        throw new Fault('redis_unavailable', 'redis at 10.0.0.7 is down');
      }),
      route('GET', '/bug', () => Promise.reject(new Error('secret internals at line 42'))),
    ];
    const { call } = await start({
      routes,
      logger: { error: (fields) => void logged.push(fields) },
    });
    const down = await call('/down');
    expect(down).toMatchObject({ status: 503, json: { error: { code: 'unavailable' } } });
    expect(down.headers.get('retry-after')).toBe('1');
    expect(down.text).not.toContain('10.0.0.7');
    const bug = await call('/bug');
    expect(bug).toMatchObject({ status: 500, json: { error: { code: 'internal_error' } } });
    expect(bug.text).not.toContain('secret internals');
    expect(logged).toHaveLength(2);
  });

  it('answers 400 for a path that is not validly percent-encoded', async () => {
    const { call } = await start({ routes: [route('GET', '/c/:id', () => ({ status: 204 }))] });
    expect(await call('/c/%E0%A4%A')).toMatchObject({
      status: 400,
      json: { error: { code: 'bad_path' } },
    });
  });

  it('closes idempotently, also with a kept-alive connection open, and then refuses connections', async () => {
    const { server, call } = await start();
    await call('/healthz');
    await Promise.all([server.close(), server.close()]);
    await expect(fetch(`http://127.0.0.1:${server.port}/healthz`)).rejects.toThrow();
  });

  it('rejects when the port is taken', async () => {
    const { server } = await start();
    await expect(startHttpServer({ port: server.port, ready: () => true })).rejects.toThrow(
      /EADDRINUSE/,
    );
  });

  it('sends a streaming answer as it is written, and ends it when the handler closes it', async () => {
    let closedSeen = false;
    const routes = [
      route('GET', '/stream', () => ({
        status: 200,
        headers: { 'content-type': 'text/plain; charset=utf-8' },
        open: (stream) => {
          stream.onClose(() => (closedSeen = true));
          stream.write('one ');
          stream.write('two');
          stream.close();
          expect(stream.write('three')).toBe(false);
        },
      })),
    ];
    const { call } = await start({ routes });
    const res = await call('/stream');
    expect(res).toMatchObject({ status: 200, text: 'one two' });
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(closedSeen).toBe(true);
  });

  it('sends its common headers with every answer, its own errors and streams included; a route may override one', async () => {
    const headers = { 'x-frame-options': 'DENY', 'referrer-policy': 'no-referrer' };
    const routes = [
      route('GET', '/ok', () => ({
        status: 200,
        body: {},
        headers: { 'referrer-policy': 'origin' },
      })),
      route('GET', '/boom', () => {
        throw new Error('boom');
      }),
      route('GET', '/stream', () => ({ status: 200, open: (stream) => stream.close() })),
    ];
    const { call } = await start({ routes, headers });
    for (const path of ['/boom', '/missing', '/stream', '/healthz']) {
      const res = await call(path);
      expect({ path, frame: res.headers.get('x-frame-options') }).toEqual({ path, frame: 'DENY' });
      expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    }
    expect((await call('/ok')).headers.get('referrer-policy')).toBe('origin');
  });
});

describe('sessionTokenOf', () => {
  it('takes the toolgate-session header, else a bearer token, else nothing', () => {
    expect(sessionTokenOf({ 'toolgate-session': 'own', authorization: 'Bearer other' })).toBe(
      'own',
    );
    expect(sessionTokenOf({ 'toolgate-session': '', authorization: 'bearer  tok ' })).toBe('tok');
    expect(sessionTokenOf({ authorization: 'Basic dXNlcg==' })).toBeUndefined();
    expect(sessionTokenOf({})).toBeUndefined();
  });
});
