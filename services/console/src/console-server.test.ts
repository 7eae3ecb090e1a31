/**
 * The console's server without a browser: sessions and their cookie, the CSRF and origin checks,
 * security headers, static files, and how calls are relayed to a stand-in approval API.
 */
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Principal } from '@toolgate/shared';
import { parseDevSignIns } from './dev-sign-ins.js';
import { startConsole, type ConsoleOptions, type RunningConsole } from './service.js';

const ALICE: Principal = { subject: 'alice', tenant: 'acme', roles: ['approver'] };

/** A token whose payload names `exp` (seconds), as a JWT's does. */
function tokenExpiring(atMs: number, name = 'alice'): string {
  const payload = Buffer.from(JSON.stringify({ sub: name, exp: Math.floor(atMs / 1000) }));
  return `h.${payload.toString('base64url')}.s`;
}

const GOOD = tokenExpiring(Date.now() + 3_600_000);

/** Accepts the tokens of {@link tokenExpiring} for alice, anything else is refused. */
const verifier = {
  verify: (token: string | undefined) =>
    Promise.resolve(
      token?.startsWith('h.') === true
        ? ({ ok: true, value: ALICE } as const)
        : ({ ok: false, publicMessage: 'The session is not valid.' } as const),
    ),
} as unknown as ConsoleOptions['verifier'];

interface Seen {
  readonly method: string;
  readonly url: string;
  readonly authorization: string | undefined;
  readonly body: string;
}

/** A stand-in approval API: two pending cards of one run, a third of another. */
let upstream: Server;
let upstreamUrl: string;
const seen: Seen[] = [];
const card = (confirmationId: string, runId: string, tool = 'approve_invoice') => ({
  confirmationId,
  proposalId: `p-${confirmationId}`,
  runId,
  tenant: 'acme',
  requestedBy: 'alice',
  tool,
  card: { action: 'Approve invoice', target: 'inv_1', effect: 'x', preview: null },
  digest: `d-${confirmationId}`,
  expiresAt: new Date(Date.now() + 600_000).toISOString(),
});

beforeAll(async () => {
  upstream = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      seen.push({
        method: req.method ?? '',
        url: req.url ?? '',
        authorization: req.headers.authorization,
        body,
      });
      res.setHeader('content-type', 'application/json');
      if (req.url?.startsWith('/pending')) {
        const confirmations = [card('c1', 'run-1'), card('c2', 'run-1'), card('c3', 'run-2')];
        res.end(JSON.stringify({ tenant: 'acme', confirmations }));
      } else if (req.url?.startsWith('/confirmations/')) {
        res.statusCode = 202;
        res.end(JSON.stringify({ confirmationId: req.url.split('/')[2], decision: 'approve' }));
      } else {
        res.statusCode = 404;
        res.end(JSON.stringify({ error: { code: 'not_found', message: 'No such resource.' } }));
      }
    });
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => upstream.close(() => resolve())));

const running: RunningConsole[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((c) => c.close()));
  seen.length = 0;
});

async function start(extra: Partial<ConsoleOptions> = {}): Promise<RunningConsole> {
  const console = await startConsole({
    port: 0,
    approvalUrl: upstreamUrl,
    analyticsUrl: upstreamUrl,
    verifier,
    ...extra,
  });
  running.push(console);
  return console;
}

interface Answer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly text: string;
  json(): unknown;
}

/** A raw HTTP request (so Host and Origin are what the test says). */
function send(
  c: RunningConsole,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: unknown,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const text = body === undefined ? undefined : JSON.stringify(body);
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port: c.port,
        method,
        path,
        headers: {
          ...(text === undefined ? {} : { 'content-type': 'application/json' }),
          ...headers,
        },
      },
      (res) => {
        let data = '';
        res.on('data', (chunk: Buffer) => (data += chunk.toString()));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text: data,
            json: () => JSON.parse(data) as unknown,
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(text);
  });
}

/** Signs in with `token`; the cookie header and CSRF token to send after. */
async function signIn(c: RunningConsole, token = GOOD) {
  const answer = await send(c, 'POST', '/api/session', {}, { token });
  expect(answer.status).toBe(200);
  const cookie = String(answer.headers['set-cookie']).split(';')[0]!;
  const { csrf } = answer.json() as { csrf: string };
  return { cookie, csrf, answer };
}

describe('signing in', () => {
  it('sets an HttpOnly, SameSite=Strict session cookie and never answers with the token', async () => {
    const c = await start();
    const { cookie, answer } = await signIn(c);
    const setCookie = String(answer.headers['set-cookie']);
    expect(setCookie).toMatch(/^toolgate_console=[A-Za-z0-9_-]{43}; /);
    expect(setCookie).toContain('HttpOnly');
    expect(setCookie).toContain('SameSite=Strict');
    expect(setCookie).toContain('Path=/');
    expect(setCookie).not.toContain('Secure');
    expect(answer.text).not.toContain(GOOD);
    const who = await send(c, 'GET', '/api/session', { cookie });
    expect(who.json()).toMatchObject({ subject: 'alice', tenant: 'acme', roles: ['approver'] });
    expect(who.text).not.toContain(GOOD);
    expect(who.headers['cache-control']).toBe('no-store');
  });

  it('marks the cookie Secure when the console is served over https', async () => {
    const c = await start({ publicOrigin: 'https://console.example.test' });
    const answer = await send(
      c,
      'POST',
      '/api/session',
      { host: 'console.example.test' },
      { token: GOOD },
    );
    expect(String(answer.headers['set-cookie'])).toContain('Secure');
  });

  it('refuses a token that does not verify, and sets no cookie', async () => {
    const c = await start();
    const answer = await send(c, 'POST', '/api/session', {}, { token: 'forged' });
    expect(answer.status).toBe(401);
    expect(answer.headers['set-cookie']).toBeUndefined();
    expect(c.sessions.size).toBe(0);
  });

  it('ends the session when its token expires', async () => {
    let now = Date.now();
    const c = await start({ now: () => new Date(now) });
    const { cookie } = await signIn(c, tokenExpiring(now + 60_000));
    expect((await send(c, 'GET', '/api/session', { cookie })).status).toBe(200);
    now += 61_000;
    expect((await send(c, 'GET', '/api/session', { cookie })).status).toBe(401);
    expect((await send(c, 'GET', '/api/pending', { cookie })).status).toBe(401);
  });

  it('replaces the session of a browser that signs in again', async () => {
    const c = await start();
    const first = await signIn(c);
    const again = await send(c, 'POST', '/api/session', { cookie: first.cookie }, { token: GOOD });
    expect(again.status).toBe(200);
    expect(c.sessions.size).toBe(1);
    expect((await send(c, 'GET', '/api/session', { cookie: first.cookie })).status).toBe(401);
  });

  it('holds at most maxSessions sessions', async () => {
    const c = await start({ maxSessions: 2 });
    await signIn(c);
    await signIn(c);
    const third = await send(c, 'POST', '/api/session', {}, { token: GOOD });
    expect(third.status).toBe(503);
  });

  it('signs out: the session is gone and the cookie cleared', async () => {
    const c = await start();
    const { cookie, csrf } = await signIn(c);
    const out = await send(c, 'DELETE', '/api/session', { cookie, 'x-toolgate-csrf': csrf });
    expect(out.status).toBe(204);
    expect(String(out.headers['set-cookie'])).toContain('Max-Age=0');
    expect((await send(c, 'GET', '/api/session', { cookie })).status).toBe(401);
  });

  it('offers development sign-ins by label only, and signs in with one', async () => {
    const c = await start({ devSignIns: [{ label: 'alice (approver)', token: GOOD }] });
    const listed = await send(c, 'GET', '/api/dev-sign-ins');
    expect(listed.json()).toEqual({ signIns: [{ index: 0, label: 'alice (approver)' }] });
    expect(listed.text).not.toContain(GOOD);
    const answer = await send(c, 'POST', '/api/session', {}, { devSignIn: 0 });
    expect(answer.status).toBe(200);
    expect((await send(c, 'POST', '/api/session', {}, { devSignIn: 1 })).status).toBe(400);
  });
});

describe('the CSRF and origin checks', () => {
  it('refuses a change without the CSRF token, with a wrong one, or from a foreign origin', async () => {
    const c = await start();
    const { cookie, csrf } = await signIn(c);
    const approve = (headers: Record<string, string>) =>
      send(c, 'POST', '/api/confirmations/c1/approve', { cookie, ...headers }, { digest: 'd-c1' });
    expect((await approve({})).status).toBe(403);
    expect((await approve({ 'x-toolgate-csrf': 'wrong' })).status).toBe(403);
    const foreign = await approve({ 'x-toolgate-csrf': csrf, origin: 'http://evil.example' });
    expect(foreign.status).toBe(403);
    expect(seen.filter((s) => s.method === 'POST')).toEqual([]);
    const own = await approve({ 'x-toolgate-csrf': csrf, origin: `http://127.0.0.1:${c.port}` });
    expect(own.status).toBe(202);
    expect(seen.filter((s) => s.method === 'POST')).toEqual([
      {
        method: 'POST',
        url: '/confirmations/c1/approve',
        authorization: `Bearer ${GOOD}`,
        body: '{"digest":"d-c1"}',
      },
    ]);
  });

  it('refuses a sign-in from a foreign origin', async () => {
    const c = await start();
    const answer = await send(
      c,
      'POST',
      '/api/session',
      { origin: 'http://evil.example' },
      { token: GOOD },
    );
    expect(answer.status).toBe(403);
    expect(c.sessions.size).toBe(0);
  });

  it('refuses requests that name a host the console is not reached at (DNS rebinding)', async () => {
    const c = await start();
    const page = await send(c, 'GET', '/', { host: `evil.example:${c.port}` });
    expect(page.status).toBe(403);
    const signIn = await send(c, 'POST', '/api/session', { host: 'evil.example' }, { token: GOOD });
    expect(signIn.status).toBe(403);
  });

  it('answers 401 on every API route without a session', async () => {
    const c = await start();
    for (const path of [
      '/api/pending',
      '/api/decided',
      '/api/analytics/windows',
      '/api/pending/stream',
    ]) {
      expect((await send(c, 'GET', path)).status).toBe(401);
    }
  });
});

describe('security headers and static files', () => {
  it('sends a strict CSP and the other headers on pages, API answers and errors', async () => {
    const c = await start();
    for (const path of ['/', '/dashboard', '/api/session', '/no-such-page']) {
      const answer = await send(c, 'GET', path);
      expect(answer.headers['content-security-policy']).toContain("default-src 'self'");
      expect(answer.headers['content-security-policy']).toContain("frame-ancestors 'none'");
      expect(answer.headers['content-security-policy']).not.toContain('unsafe-inline');
      expect(answer.headers['x-content-type-options']).toBe('nosniff');
      expect(answer.headers['referrer-policy']).toBe('no-referrer');
    }
  });

  it('serves its pages, scripts and uPlot with their content types', async () => {
    const c = await start();
    const page = await send(c, 'GET', '/');
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.text).not.toMatch(/<script(?![^>]*\bsrc=)/);
    expect(page.text).not.toMatch(/style=/);
    expect((await send(c, 'GET', '/app/inbox.js')).headers['content-type']).toBe(
      'text/javascript; charset=utf-8',
    );
    expect((await send(c, 'GET', '/app/console.css')).headers['content-type']).toBe(
      'text/css; charset=utf-8',
    );
    const uplot = await send(c, 'GET', '/vendor/uPlot.esm.js');
    expect(uplot.status).toBe(200);
    expect(uplot.text).toContain('export');
  });

  it('serves nothing outside its files, however the path is spelled', async () => {
    const c = await start();
    for (const path of [
      '/../package.json',
      '/app/../../package.json',
      '/%2e%2e/package.json',
      '/app/%2e%2e%2f%2e%2e%2fpackage.json',
      '/app/..%2f..%2fsrc/main.ts',
      '/vendor/uPlot.d.ts',
      '/vendor/../../package.json',
      '/app/',
    ]) {
      const answer = await send(c, 'GET', path);
      expect({ path, status: answer.status }).toEqual({ path, status: 404 });
    }
  });
});

describe('relaying to the approval API', () => {
  it('lists the pending cards with the caller’s token', async () => {
    const c = await start();
    const { cookie } = await signIn(c);
    const answer = await send(c, 'GET', '/api/pending', { cookie });
    expect(answer.status).toBe(200);
    expect((answer.json() as { confirmations: unknown[] }).confirmations).toHaveLength(3);
    expect(seen.at(-1)?.authorization).toBe(`Bearer ${GOOD}`);
  });

  it('passes an upstream 404 on as a JSON error', async () => {
    const c = await start();
    const { cookie } = await signIn(c);
    const answer = await send(c, 'GET', '/api/decided?tool=approve_invoice', { cookie });
    expect(answer.status).toBe(404);
    expect(answer.json()).toEqual({ error: { code: 'not_found', message: 'No such resource.' } });
    expect(seen.at(-1)?.url).toBe('/decided?tool=approve_invoice');
  });

  it('answers 502 with a message when the upstream cannot be reached', async () => {
    const c = await start({ approvalUrl: 'http://127.0.0.1:1' });
    const { cookie } = await signIn(c);
    const answer = await send(c, 'GET', '/api/pending', { cookie });
    expect(answer.status).toBe(502);
    expect(answer.json()).toEqual({
      error: { code: 'upstream_unreachable', message: 'The approval API cannot be reached.' },
    });
  });
});

describe('bulk decisions', () => {
  async function bulk(body: unknown) {
    const c = await start();
    const { cookie, csrf } = await signIn(c);
    return send(c, 'POST', '/api/bulk', { cookie, 'x-toolgate-csrf': csrf }, body);
  }
  const item = (id: string) => ({ confirmationId: id, digest: `d-${id}` });

  it('relays each item of one run and one tool', async () => {
    const answer = await bulk({ decision: 'approve', items: [item('c1'), item('c2')] });
    expect(answer.status).toBe(200);
    expect(seen.filter((s) => s.method === 'POST').map((s) => [s.url, s.body])).toEqual([
      ['/confirmations/c1/approve', '{"digest":"d-c1"}'],
      ['/confirmations/c2/approve', '{"digest":"d-c2"}'],
    ]);
  });

  it.each([
    ['items of two runs', { decision: 'approve', items: [item('c1'), item('c3')] }],
    ['an item not waiting now', { decision: 'approve', items: [item('c1'), item('gone')] }],
    ['an unknown decision', { decision: 'amend', items: [item('c1')] }],
    ['no items', { decision: 'approve', items: [] }],
    ['an item twice', { decision: 'approve', items: [item('c1'), item('c1')] }],
    ['an item without a digest', { decision: 'approve', items: [{ confirmationId: 'c1' }] }],
    ['a reason too long', { decision: 'reject', reason: 'x'.repeat(281), items: [item('c1')] }],
  ])('refuses %s with 400 and relays nothing', async (_, body) => {
    const answer = await bulk(body);
    expect(answer.status).toBe(400);
    expect((answer.json() as { error: { code: string } }).error.code).toBe('invalid_bulk');
    expect(seen.filter((s) => s.method === 'POST')).toEqual([]);
  });
});

/** Opens an event stream; `text()` is what arrived so far, `ended` resolves when it closes. */
function openStream(c: RunningConsole, path: string, cookie: string) {
  let received = '';
  let status = 0;
  const ended = new Promise<void>((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port: c.port, path, headers: { cookie } },
      (res) => {
        status = res.statusCode ?? 0;
        res.on('data', (chunk: Buffer) => (received += chunk.toString()));
        res.on('end', () => resolve());
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
  return { text: () => received, status: () => status, ended };
}

describe('the pending stream', () => {
  it('sends the list at once, and ends with session_ended when the token expires', async () => {
    let now = Date.now();
    const c = await start({ now: () => new Date(now), pendingPollMs: 50 });
    const { cookie } = await signIn(c, tokenExpiring(now + 60_000));
    const stream = openStream(c, '/api/pending/stream', cookie);
    await expect.poll(stream.text).toContain('event: pending\ndata: {"tenant":"acme"');
    expect(stream.status()).toBe(200);
    expect(stream.text().match(/event: pending/g)).toHaveLength(1);
    now += 61_000;
    await stream.ended;
    expect(stream.text()).toContain('event: session_ended');
  });

  it('holds at most four streams per session', async () => {
    const c = await start({ pendingPollMs: 50 });
    const { cookie } = await signIn(c);
    const streams = [1, 2, 3, 4].map(() => openStream(c, '/api/pending/stream', cookie));
    for (const s of streams) await expect.poll(s.text).toContain('event: pending');
    const fifth = openStream(c, '/api/pending/stream', cookie);
    await fifth.ended;
    expect(fifth.text()).toContain('event: too_many_streams');
    expect(fifth.text()).not.toContain('event: pending');
    await c.close();
  });
});

describe('parseDevSignIns', () => {
  it('takes labels and tokens, and refuses anything else naming the file', () => {
    expect(parseDevSignIns('[{"label":"alice","token":"t"}]', 'f.json')).toEqual([
      { label: 'alice', token: 't' },
    ]);
    for (const text of ['{}', '[{"label":"alice"}]', '[{"label":"","token":"t"}]', 'not json']) {
      expect(() => parseDevSignIns(text, 'f.json')).toThrow(
        /TOOLGATE_CONSOLE_DEV_SIGN_INS: f\.json/,
      );
    }
  });
});
