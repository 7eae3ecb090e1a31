import { describe, expect, it } from 'vitest';
import { auditEvent, rejecterFor, type Alert } from '@toolgate/shared';
import { createAnalyticsHub } from './analytics-hub.js';
import type { AnalyticsUpdate, WindowSummary } from './analytics-view.js';

const minute = (start: string, state: 'live' | 'final' = 'live', count = 1): WindowSummary => ({
  start,
  end: new Date(Date.parse(start) + 60_000).toISOString(),
  size: 'minute',
  state,
  rows: [
    {
      tenant: 'acme',
      tool: 'pay',
      rung: 'schema',
      code: 'unknown_tool',
      disposition: 'repair',
      count,
    },
  ],
  late: 0,
  topRefusedPrincipals: [],
  topRefusedRuns: [],
});

const alert = (alertId: string, raisedAt: string): Alert => ({
  alertId,
  rule: 'forgery',
  subject: { kind: 'gate', tenant: null, id: 'commands' },
  window: { start: raisedAt, end: raisedAt },
  counts: { forged: 1 },
  threshold: { forged: 1 },
  mode: 'alert',
  evidence: [],
  raisedAt,
});

describe('createAnalyticsHub', () => {
  it('keeps the latest counts of each window and answers them oldest first, since an instant', () => {
    const hub = createAnalyticsHub();
    hub.window(minute('2026-03-02T10:01:00.000Z'));
    hub.window(minute('2026-03-02T10:00:00.000Z', 'live', 1));
    hub.window(minute('2026-03-02T10:00:00.000Z', 'final', 4));
    expect(hub.windows('minute', {}).map((w) => [w.start, w.state, w.rows[0]?.count])).toEqual([
      ['2026-03-02T10:00:00.000Z', 'final', 4],
      ['2026-03-02T10:01:00.000Z', 'live', 1],
    ]);
    const since = new Date('2026-03-02T10:01:00.000Z');
    expect(hub.windows('minute', { since }).map((w) => w.start)).toEqual([
      '2026-03-02T10:01:00.000Z',
    ]);
    expect(hub.windows('hour', {})).toEqual([]);
  });

  it('keeps only the latest windows and alerts it is allowed', () => {
    const hub = createAnalyticsHub({ keptWindows: { minute: 2 }, keptAlerts: 1 });
    for (const m of ['03', '01', '02']) hub.window(minute(`2026-03-02T10:${m}:00.000Z`));
    expect(hub.windows('minute', {}).map((w) => w.start.slice(14, 16))).toEqual(['02', '03']);
    hub.alert(alert('b', '2026-03-02T10:02:00Z'));
    hub.alert(alert('a', '2026-03-02T10:01:00Z'));
    expect(hub.alerts({}).map((a) => a.alertId)).toEqual(['b']);
  });

  it('replaces an alert of the same id and answers alerts since an instant', () => {
    const hub = createAnalyticsHub();
    hub.alert(alert('a', '2026-03-02T10:01:00Z'));
    hub.alert(alert('b', '2026-03-02T10:02:00Z'));
    hub.alert({ ...alert('a', '2026-03-02T10:01:00Z'), counts: { forged: 2 } });
    expect(hub.alerts({}).map((a) => [a.alertId, a.counts['forged']])).toEqual([
      ['a', 2],
      ['b', 1],
    ]);
    expect(hub.alerts({ since: new Date('2026-03-02T10:02:00Z') }).map((a) => a.alertId)).toEqual([
      'b',
    ]);
  });

  it('passes every change to its subscribers until they unsubscribe', () => {
    const hub = createAnalyticsHub();
    const seen: AnalyticsUpdate['kind'][] = [];
    const unsubscribe = hub.subscribe((u) => seen.push(u.kind));
    hub.window(minute('2026-03-02T10:00:00.000Z'));
    hub.alert(alert('a', '2026-03-02T10:01:00Z'));
    unsubscribe();
    hub.window(minute('2026-03-02T10:01:00.000Z'));
    expect(seen).toEqual(['window', 'alert']);
  });
});

describe('createAnalyticsHub: audit events and approvals', () => {
  const T = Date.parse('2026-03-02T10:00:00Z');
  const refusal = (tenant: string, atMs: number) =>
    auditEvent(
      {
        kind: 'rejected',
        rejected: rejecterFor('schema')('unknown_tool', undefined, 'no tool "pay2"'),
        tenant,
        proposalId: `p-${tenant}-${atMs}`,
      },
      new Date(atMs),
    );

  it("answers a window's events with the catalogue's public message, and a tenant's own only", () => {
    const hub = createAnalyticsHub({ now: () => T + 60_000 });
    hub.held(0, T);
    hub.audited(0, [refusal('acme', T + 1_000), refusal('globex', T + 2_000)]);
    const query = { size: 'minute', start: new Date(T).toISOString() } as const;
    const all = hub.events(query, undefined);
    expect(all.complete).toBe(true);
    expect(all.events.map((e) => e.tenant)).toEqual(['globex', 'acme']);
    expect(all.events[1]).toMatchObject({
      rung: 'schema',
      code: 'unknown_tool',
      publicMessage: 'There is no tool with that name. Use one of the tools you were given.',
      internalDetail: 'no tool "pay2"',
    });
    expect(hub.events(query, 'acme').events.map((e) => e.tenant)).toEqual(['acme']);
    expect(hub.events({ ...query, tenant: 'globex' }, 'acme').events).toEqual([]);
    hub.released(0);
    expect(hub.events(query, undefined)).toEqual({ events: [], complete: false });
  });

  it('answers approval health over a span, as ISO instants', () => {
    const hub = createAnalyticsHub({ now: () => T });
    hub.held(0, T - 3_600_000);
    const facts = { tenant: 'acme', confirmationId: 'c1' };
    hub.audited(0, [
      auditEvent({ ...facts, kind: 'pending_confirmation' }, new Date(T - 60_000)),
      auditEvent({ ...facts, kind: 'cleared' }, new Date(T - 30_000)),
    ]);
    const span = { since: new Date(T - 3_600_000), until: new Date(T) };
    expect(hub.approvals(span, 'acme')).toEqual({
      since: '2026-03-02T09:00:00.000Z',
      until: '2026-03-02T10:00:00.000Z',
      parked: 1,
      approved: 1,
      rejected: 0,
      expired: 0,
      changed: 0,
      approvalRate: 1,
      medianDecideMs: 30_000,
    });
  });
});
