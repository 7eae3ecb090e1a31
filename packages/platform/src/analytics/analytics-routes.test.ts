import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createSessionVerifier,
  mintSession,
  type Alert,
  type Principal,
  type WindowSize,
} from '@toolgate/shared';
import { startHttpServer, type HttpServer } from '../http.js';
import { analyticsRoutes, type AnalyticsRoutesOptions } from './analytics-routes.js';
import type {
  AnalyticsQuery,
  AnalyticsUpdate,
  AnalyticsView,
  ApprovalHealth,
  ApprovalSpan,
  AuditEventQuery,
  AuditEventView,
  WindowSummary,
} from './analytics-view.js';

const SECRET = 'analytics-routes-test-secret-of-32-bytes!';
const ISSUER = 'https://sessions.test';
const T0 = new Date('2026-03-02T10:00:30Z');

const ops: Principal = { subject: 'olga', tenant: 'toolgate-ops', roles: ['operator'] };
const acmeOps: Principal = { subject: 'ana', tenant: 'acme', roles: ['operator'] };
const acmeClerk: Principal = { subject: 'carl', tenant: 'acme', roles: ['clerk'] };
const acmeApprover: Principal = { subject: 'abe', tenant: 'acme', roles: ['approver'] };
const opsApprover: Principal = { subject: 'oz', tenant: 'toolgate-ops', roles: ['approver'] };

const row = (tenant: string, count: number) =>
  ({
    tenant,
    tool: 'pay_invoice',
    rung: 'authorization',
    code: 'not_authorized',
    disposition: 'deny',
    count,
  }) as const;

const minute = (start: string, state: 'live' | 'final' = 'final'): WindowSummary => ({
  start,
  end: new Date(Date.parse(start) + 60_000).toISOString(),
  size: 'minute',
  state,
  rows: [row('acme', 3), row('globex', 5)],
  late: 1,
  topRefusedPrincipals: [
    { id: 'globex-bot', tenant: 'globex', refusals: 5 },
    { id: 'acme-bot', tenant: 'acme', refusals: 3 },
  ],
  topRefusedRuns: [{ id: 'run-g', tenant: 'globex', refusals: 5 }],
});

const alertOn = (tenant: string | null, kind: Alert['subject']['kind']): Alert => ({
  alertId: `a-${tenant ?? 'gate'}`,
  rule: 'authorization_probing',
  subject: { kind, tenant, id: tenant ?? 'forgeries' },
  window: { start: '2026-03-02T09:50:00Z', end: '2026-03-02T10:00:00Z' },
  counts: { refusals: 7 },
  threshold: { refusals: 5 },
  mode: 'alert',
  evidence: [],
  raisedAt: '2026-03-02T10:00:00Z',
});

const refusalEvent: AuditEventView = {
  eventId: 'e1',
  at: '2026-03-02T09:59:10.000Z',
  kind: 'rejected',
  tenant: 'acme',
  tool: 'pay_invoice',
  rung: 'authorization',
  code: 'not_authorized',
  disposition: 'deny',
  subject: 'acme-bot',
  runId: 'run-a',
  proposalId: 'p1',
  confirmationId: null,
  publicMessage: 'This action is not allowed.',
  internalDetail: 'denied by policy forbid-refunds on Invoice::"inv-7"',
};

const health: ApprovalHealth = {
  since: '2026-03-02T09:00:30.000Z',
  until: '2026-03-02T10:00:30.000Z',
  parked: 4,
  approved: 2,
  rejected: 1,
  expired: 1,
  changed: 0,
  approvalRate: 0.5,
  medianDecideMs: 42_000,
};

/** What a view was asked: windows and alerts, events and approvals with the tenant they were kept to. */
type Asked =
  | { size?: WindowSize; query: AnalyticsQuery }
  | { events: AuditEventQuery; tenant: string | undefined }
  | { approvals: ApprovalSpan; tenant: string | undefined };

/** An in-memory view that records what it was asked and who listens. */
function memoryView() {
  const listeners = new Set<(update: AnalyticsUpdate) => void>();
  const asked: Asked[] = [];
  const windows = [minute('2026-03-02T09:58:00Z'), minute('2026-03-02T09:59:00Z', 'live')];
  const alerts = [alertOn('acme', 'run'), alertOn('globex', 'principal'), alertOn(null, 'gate')];
  const view: AnalyticsView = {
    windows: (size, query) => {
      asked.push({ size, query });
      return windows.filter(
        (w) =>
          w.size === size &&
          (query.since === undefined || Date.parse(w.end) > query.since.getTime()),
      );
    },
    alerts: (query) => {
      asked.push({ query });
      return alerts;
    },
    subscribe: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    events: (query, tenant) => {
      asked.push({ events: query, tenant });
      return { events: [refusalEvent], complete: true };
    },
    approvals: (span, tenant) => {
      asked.push({ approvals: span, tenant });
      return health;
    },
  };
  const publish = (update: AnalyticsUpdate) => listeners.forEach((l) => l(update));
  return { view, asked, listeners, publish };
}

/** What the API answers, as these tests read it. */
interface Answer {
  readonly size?: string;
  readonly windows: WindowSummary[];
  readonly alerts: Alert[];
  readonly events: AuditEventView[];
  readonly complete: boolean;
  readonly error: { readonly code: string; readonly message: string };
}

/** One streamed event's data: a window or an alert. */
type EventData = Partial<WindowSummary> & Partial<Alert>;

const servers: HttpServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function start(options: Partial<AnalyticsRoutesOptions> = {}) {
  const memory = memoryView();
  const clock = { now: T0 };
  const routes = analyticsRoutes({
    view: memory.view,
    verifier: createSessionVerifier({ secret: SECRET, issuer: ISSUER }),
    now: () => clock.now,
    access: { installationTenant: 'toolgate-ops' },
    ...options,
  });
  const server = await startHttpServer({ port: 0, ready: () => true, routes });
  servers.push(server);
  const base = `http://127.0.0.1:${server.port}`;
  const get = async (path: string, who?: Principal | string) => {
    const res = await fetch(base + path, { headers: await auth(who) });
    return {
      status: res.status,
      headers: res.headers,
      json: (await res.json()) as Answer,
    };
  };
  return { ...memory, server, base, clock, get };
}

async function auth(who: Principal | string | undefined): Promise<Record<string, string>> {
  if (who === undefined) return {};
  const token =
    typeof who === 'string'
      ? who
      : await mintSession(who, SECRET, { now: T0, ttlSeconds: 600, issuer: ISSUER });
  return { authorization: `Bearer ${token}` };
}

/** An SSE client: reads the stream and waits, with a deadline naming what for, on its text. */
async function openStream(base: string, path: string, who: Principal) {
  const abort = new AbortController();
  const res = await fetch(base + path, { headers: await auth(who), signal: abort.signal });
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let text = '';
  let ended = false;
  const until = async (
    what: string,
    done: (text: string, ended: boolean) => boolean,
    ms = 5_000,
  ) => {
    const deadline = Date.now() + ms;
    while (!done(text, ended)) {
      if (ended)
        throw new Error(`the stream ended before ${what}; it read ${JSON.stringify(text)}`);
      const left = deadline - Date.now();
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)),
          left,
        );
      });
      const chunk = await Promise.race([reader.read(), timeout]).finally(() => clearTimeout(timer));
      if (chunk.done) ended = true;
      else text += decoder.decode(chunk.value, { stream: true });
    }
    return text;
  };
  const close = () => {
    void reader.cancel().catch(() => undefined);
    abort.abort();
  };
  return { res, until, abort: close, events: () => eventsOf(text) };
}

function eventsOf(text: string): { event: string; data: EventData }[] {
  return text
    .split('\n\n')
    .filter((block) => block.startsWith('event: '))
    .map((block) => {
      const [event, data] = block.split('\n');
      return {
        event: event!.slice('event: '.length),
        data: JSON.parse(data!.slice('data: '.length)) as EventData,
      };
    });
}

/** An operator's GET of `path` is refused with 400 `code` and `message`, and the view not asked. */
async function expectRefused(path: string, code: string, message: string) {
  const { get, asked } = await start();
  const res = await get(path, ops);
  expect(res.status).toBe(400);
  expect(res.json.error.code).toBe(code);
  expect(res.json.error.message).toContain(message);
  expect(asked).toEqual([]);
}

/** Polls `check` until true, failing with `what` after `ms`. */
async function polled(what: string, check: () => boolean, ms = 5_000) {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe('analyticsRoutes: who may read', () => {
  it('refuses a request without a session token, with a bad one or without a reading role', async () => {
    const { get, asked } = await start();
    const none = await get('/analytics/windows');
    expect(none).toMatchObject({ status: 401, json: { error: { code: 'unauthorized' } } });
    expect(none.headers.get('www-authenticate')).toBe('Bearer');
    expect((await get('/analytics/alerts', 'not-a-token')).status).toBe(401);
    expect(await get('/analytics/windows', acmeClerk)).toMatchObject({
      status: 403,
      json: {
        error: {
          code: 'forbidden',
          message: 'Reading analytics takes the operator or approver role.',
        },
      },
    });
    expect((await get('/analytics/stream', acmeClerk)).status).toBe(403);
    expect((await get(EVENTS, acmeClerk)).status).toBe(403);
    expect((await get('/analytics/approvals', acmeClerk)).status).toBe(403);
    expect((await get(EVENTS)).status).toBe(401);
    expect((await get('/analytics/approvals', 'not-a-token')).status).toBe(401);
    expect(asked).toEqual([]);
  });

  it("shows an operator of the installation's tenant every tenant's counts and alerts", async () => {
    const { get } = await start();
    const windows = await get('/analytics/windows?size=minute', ops);
    expect(windows.status).toBe(200);
    expect(windows.json.windows[0]?.rows).toHaveLength(2);
    const alerts = await get('/analytics/alerts', ops);
    expect(alerts.json.alerts.map((a) => a.subject.id)).toEqual(['acme', 'globex', 'forgeries']);
  });

  it("shows another tenant's operator their own tenant's rows, principals, runs and alerts only", async () => {
    const { get } = await start();
    const { json } = await get('/analytics/windows', acmeOps);
    const [first] = json.windows;
    expect(first!.rows).toEqual([row('acme', 3)]);
    expect(first!.topRefusedPrincipals).toEqual([{ id: 'acme-bot', tenant: 'acme', refusals: 3 }]);
    expect(first!.topRefusedRuns).toEqual([]);
    expect(JSON.stringify(json)).not.toContain('globex');
    const alerts = await get('/analytics/alerts', acmeOps);
    expect(alerts.json.alerts.map((a) => a.subject.id)).toEqual(['acme']);
  });

  it('lets every operator see their own tenant only when no installation tenant is set', async () => {
    const { get } = await start({ access: {} });
    const { json } = await get('/analytics/alerts', ops);
    expect(json.alerts).toEqual([]);
  });
});

describe('analyticsRoutes: approvers', () => {
  it("shows a tenant's approver their own tenant's windows and alerts, as its operators see them", async () => {
    const { get } = await start();
    const { status, json } = await get('/analytics/windows', acmeApprover);
    expect(status).toBe(200);
    expect(json.windows[0]!.rows).toEqual([row('acme', 3)]);
    expect(JSON.stringify(json)).not.toContain('globex');
    const alerts = await get('/analytics/alerts', acmeApprover);
    expect(alerts.json.alerts.map((a) => a.subject.id)).toEqual(['acme']);
  });

  it('takes the reading roles and the detail role from its options', async () => {
    const { get } = await start({
      access: { roles: ['auditor'], detailRole: 'auditor', installationTenant: 'toolgate-ops' },
    });
    const auditor: Principal = { subject: 'al', tenant: 'acme', roles: ['auditor'] };
    expect((await get(EVENTS, acmeOps)).json.error.message).toBe(
      'Reading analytics takes the auditor role.',
    );
    expect((await get(EVENTS, auditor)).json.events[0]).toHaveProperty('internalDetail');
  });
});

/** A drill-down into the 09:59 minute window. */
const EVENTS = '/analytics/events?size=minute&start=2026-03-02T09:59:00Z';

describe('analyticsRoutes: the events behind a count', () => {
  it('answers the events with their internal detail to an operator, and all tenants to the installation', async () => {
    const { get, asked } = await start();
    const res = await get(
      `${EVENTS}&tenant=acme&tool=pay_invoice&rung=authorization&code=not_authorized&disposition=deny&subject=acme-bot&runId=run-a&limit=200`,
      ops,
    );
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ events: [refusalEvent], complete: true });
    expect(asked).toEqual([
      {
        events: {
          size: 'minute',
          start: '2026-03-02T09:59:00.000Z',
          tenant: 'acme',
          tool: 'pay_invoice',
          rung: 'authorization',
          code: 'not_authorized',
          disposition: 'deny',
          subject: 'acme-bot',
          runId: 'run-a',
          limit: 200,
        },
        tenant: undefined,
      },
    ]);
  });

  it("gives an approver the public message only, never the internal detail, and only their tenant's events", async () => {
    const { get, asked } = await start();
    const res = await get(`${EVENTS}&code=not_authorized`, acmeApprover);
    expect(res.status).toBe(200);
    const { internalDetail: _detail, ...shown } = refusalEvent;
    expect(res.json.events).toEqual([shown]);
    expect(JSON.stringify(res.json)).not.toContain('forbid-refunds');
    expect(asked).toMatchObject([{ events: { limit: 50, size: 'minute' }, tenant: 'acme' }]);
    const installation = await get(EVENTS, opsApprover);
    expect(installation.json.events[0]).not.toHaveProperty('internalDetail');
    expect(asked.at(-1)).toMatchObject({ tenant: undefined });
    expect((await get(EVENTS, acmeOps)).json.events[0]).toHaveProperty('internalDetail');
    expect(asked.at(-1)).toMatchObject({ tenant: 'acme' });
  });

  it.each([
    ['/analytics/events', 'missing_parameter', 'start is required'],
    [`${EVENTS}&size=day`, 'repeated_parameter', 'Parameter size is given more than once.'],
    ['/analytics/events?size=day&start=2026-03-02T09:59:00Z', 'invalid_size', 'got "day"'],
    ['/analytics/events?start=yesterday', 'invalid_start', 'got "yesterday"'],
    ['/analytics/events?start=2026-03-02T09:59:30Z', 'invalid_start', 'start of a minute window'],
    [
      '/analytics/events?size=hour&start=2026-03-02T09:59:00Z',
      'invalid_start',
      'start must be the start of a hour window',
    ],
    [`${EVENTS}&rung=ladder`, 'invalid_rung', 'rung must be one of authentication,'],
    [`${EVENTS}&code=nope`, 'invalid_code', 'code "nope" is not a code of the catalogue.'],
    [
      `${EVENTS}&rung=schema&code=not_authorized`,
      'invalid_code',
      'code "not_authorized" is not a code of rung schema.',
    ],
    [`${EVENTS}&disposition=maybe`, 'invalid_disposition', 'disposition must be one of execute,'],
    [`${EVENTS}&limit=0`, 'invalid_limit', 'limit must be a whole number from 1 to 200, got "0".'],
    [`${EVENTS}&limit=201`, 'invalid_limit', 'got "201"'],
    [`${EVENTS}&limit=5.5`, 'invalid_limit', 'got "5.5"'],
    [`${EVENTS}&tenant=`, 'invalid_value', 'tenant must be 1 to 256 characters'],
    [`${EVENTS}&runId=${'r'.repeat(257)}`, 'invalid_value', 'runId must be 1 to 256'],
    [`${EVENTS}&since=2026-03-02T09:59:00Z`, 'unknown_parameter', 'Unknown parameter "since"'],
    ['/analytics/approvals?since=soon', 'invalid_since', 'got "soon"'],
    ['/analytics/approvals?tenant=acme', 'unknown_parameter', 'this resource takes since'],
  ])('refuses %s with 400 %s', expectRefused);
});

describe('analyticsRoutes: approval health', () => {
  it("measures the last hour by default, and since the instant asked, within the caller's tenant", async () => {
    const { get, asked } = await start();
    const res = await get('/analytics/approvals', acmeApprover);
    expect(res).toMatchObject({ status: 200, json: health });
    const until = T0;
    const hourAgo = new Date(T0.getTime() - 3_600_000);
    expect(asked).toEqual([{ approvals: { since: hourAgo, until }, tenant: 'acme' }]);
    await get('/analytics/approvals?since=2026-03-02T08:00:00Z', ops);
    expect(asked.at(-1)).toEqual({
      approvals: { since: new Date('2026-03-02T08:00:00Z'), until },
      tenant: undefined,
    });
    await get('/analytics/approvals?since=2026-03-02T11:00:00Z', ops);
    expect(asked.at(-1)).toMatchObject({ approvals: { since: until, until } });
  });
});

describe('analyticsRoutes: windows and alerts', () => {
  it('answers the windows of the size asked, since the instant asked', async () => {
    const { get, asked } = await start();
    const res = await get('/analytics/windows?size=minute&since=2026-03-02T09:59:30Z', ops);
    expect(res.status).toBe(200);
    expect(res.json.size).toBe('minute');
    expect(res.json.windows.map((w) => [w.start, w.state])).toEqual([
      ['2026-03-02T09:59:00Z', 'live'],
    ]);
    expect(asked).toEqual([{ size: 'minute', query: { since: new Date('2026-03-02T09:59:30Z') } }]);
    expect((await get('/analytics/windows?size=hour', ops)).json.windows).toEqual([]);
  });

  it.each([
    ['/analytics/windows?size=day', 'invalid_size', 'size must be one of minute, hour, got "day".'],
    ['/analytics/windows?size=', 'invalid_size', 'size must be one of minute, hour, got "".'],
    ['/analytics/windows?since=yesterday', 'invalid_since', 'since must be an ISO-8601 instant'],
    ['/analytics/alerts?since=2026-03-02', 'invalid_since', 'got "2026-03-02"'],
    ['/analytics/alerts?since=2026-02-30T10:00:00Z', 'invalid_since', 'since must be'],
    [
      '/analytics/windows?tenant=acme',
      'unknown_parameter',
      'Unknown parameter "tenant"; this resource takes size, since.',
    ],
    [
      '/analytics/windows?size=minute&size=hour',
      'repeated_parameter',
      'Parameter size is given more than once.',
    ],
    ['/analytics/alerts?size=minute', 'unknown_parameter', 'this resource takes since'],
    ['/analytics/stream?size=week', 'invalid_size', 'got "week"'],
  ])('refuses %s with 400 %s', expectRefused);
});

describe('analyticsRoutes: the stream', () => {
  it('carries windows and alerts as they come, and heartbeats', async () => {
    const { base, publish, listeners } = await start({ heartbeatMs: 20 });
    const client = await openStream(base, '/analytics/stream', ops);
    expect(client.res.status).toBe(200);
    expect(client.res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    await polled('the stream to subscribe', () => listeners.size === 1);
    publish({ kind: 'window', window: minute('2026-03-02T10:00:00Z', 'live') });
    publish({ kind: 'alert', alert: alertOn('acme', 'run') });
    await client.until('a window and an alert', () => client.events().length === 2);
    expect(client.events().map((e) => [e.event, e.data.start ?? e.data.alertId])).toEqual([
      ['window', '2026-03-02T10:00:00Z'],
      ['alert', 'a-acme'],
    ]);
    await client.until('a heartbeat', (text) => text.includes(': heartbeat\n\n'));
    client.abort();
  });

  it("carries only the size asked and, to a tenant's operator, only their tenant's updates", async () => {
    const { base, publish, listeners } = await start();
    const client = await openStream(base, '/analytics/stream?size=hour', acmeOps);
    await polled('the stream to subscribe', () => listeners.size === 1);
    publish({ kind: 'window', window: minute('2026-03-02T10:00:00Z') });
    publish({
      kind: 'window',
      window: { ...minute('2026-03-02T10:00:00Z'), size: 'hour', rows: [row('globex', 1)] },
    });
    publish({ kind: 'alert', alert: alertOn('globex', 'run') });
    publish({ kind: 'window', window: { ...minute('2026-03-02T10:00:00Z'), size: 'hour' } });
    publish({ kind: 'alert', alert: alertOn('acme', 'run') });
    await client.until('two events', () => client.events().length === 2);
    const [window, alert] = client.events();
    expect(window).toMatchObject({
      event: 'window',
      data: { size: 'hour', rows: [row('acme', 3)] },
    });
    expect(alert).toMatchObject({ event: 'alert', data: { alertId: 'a-acme' } });
    expect(client.events()).toHaveLength(2);
    client.abort();
  });

  it('unsubscribes when the client goes away', async () => {
    const { server, listeners } = await start();
    const headers = await auth(ops);
    const client = request({
      host: '127.0.0.1',
      port: server.port,
      path: '/analytics/stream',
      headers,
    });
    // Destroying the request is the client going away; its ECONNRESET is expected.
    client.on('error', () => undefined);
    client.end();
    await polled('the stream to subscribe', () => listeners.size === 1);
    client.destroy();
    await polled('the stream to unsubscribe after the client left', () => listeners.size === 0);
  });

  it('ends open streams when the server stops, and the server stops', async () => {
    const { base, listeners, server } = await start();
    const client = await openStream(base, '/analytics/stream', ops);
    await polled('the stream to subscribe', () => listeners.size === 1);
    await server.close();
    await client.until('the stream to end', (_, ended) => ended);
    expect(listeners.size).toBe(0);
  });

  it('ends a stream whose client fell further behind than the buffer allows, saying so', async () => {
    const { base, publish, listeners } = await start({ maxBufferedBytes: 200 });
    const client = await openStream(base, '/analytics/stream', ops);
    await polled('the stream to subscribe', () => listeners.size === 1);
    publish({ kind: 'window', window: minute('2026-03-02T10:00:00Z') });
    await client.until('the stream to end', (_, ended) => ended);
    expect(client.events().map((e) => e.event)).toEqual(['overflow']);
    expect(listeners.size).toBe(0);
  });

  it('ends a stream once its session no longer passes', async () => {
    const { base, clock, listeners } = await start({ heartbeatMs: 20 });
    const client = await openStream(base, '/analytics/stream', ops);
    await client.until('a heartbeat', (text) => text.includes(': heartbeat'));
    clock.now = new Date(T0.getTime() + 601_000);
    await client.until('the stream to end', (_, ended) => ended);
    expect(client.events().map((e) => e.event)).toEqual(['session_ended']);
    expect(listeners.size).toBe(0);
  });

  it('refuses a stream beyond the most open at once', async () => {
    const { base, get, listeners } = await start({ maxStreams: 1 });
    const first = await openStream(base, '/analytics/stream', ops);
    await polled('the stream to subscribe', () => listeners.size === 1);
    expect(await get('/analytics/stream', ops)).toMatchObject({
      status: 503,
      json: { error: { code: 'too_many_streams' } },
    });
    first.abort();
  });
});
