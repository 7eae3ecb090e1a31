/**
 * The analytics process's drill-down and approval health on the real stack: audit events written
 * as the stages write them, then the events behind a live count read back over HTTP (with the
 * internal detail for an operator, without it for a tenant's approver), the refusal seen on the
 * stream, and the approval health of parked and decided confirmations.
 */
import { auditEvent, rejecterFor, type AuditEvent, type AuditInput } from '@toolgate/shared';
import { EventEmitter } from 'node:events';
import type { Kafka } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../../test/support/deadline.js';
import deployment from '../../../test/support/deployment/index.js';
import { testNamespace } from '../../../test/support/namespace.js';
import {
  analyticsEnv,
  bearerFor,
  dropProvisioned,
  oliviaAs as as,
  provisionForDeployment,
  writeAudit as writeAuditIn,
} from './analytics-fixtures.test-support.js';
import { superviseAnalytics, type SupervisedAnalytics } from './supervise-analytics.js';

const ns = testNamespace('analytics-drill');
let kafka: Kafka;
let supervised: SupervisedAnalytics;
let base: string;

beforeAll(async () => {
  kafka = await provisionForDeployment(ns);
  supervised = await superviseAnalytics({
    env: analyticsEnv(ns),
    deployment,
    exit: () => undefined,
    process: new EventEmitter(),
  });
  base = `http://127.0.0.1:${supervised.port}`;
  await eventually(60_000, 'the analytics service to hold its partitions', () =>
    Promise.resolve(supervised.service.ready() && supervised.service.partitions().length > 0),
  );
}, 90_000);

afterAll(async () => {
  await supervised?.lifecycle.stop('test over');
  await dropProvisioned(ns, kafka);
});

let writes = 0;

/** Writes `events` to the namespace's audit topic in one transaction, as a stage does. */
const writeAudit = (events: readonly AuditEvent[]) =>
  writeAuditIn(kafka, ns, events, `${ns.id}.writer.${writes++}`);

async function getJson<T>(path: string, headers: Record<string, string>): Promise<T> {
  const res = await fetch(base + path, { headers });
  expect(res.status, `GET ${path}`).toBe(200);
  return (await res.json()) as T;
}

interface Row {
  readonly tenant: string | null;
  readonly tool: string | null;
  readonly code: string | null;
  readonly count: number;
}
interface Window {
  readonly start: string;
  readonly rows: readonly Row[];
}
interface EventsPage {
  readonly events: readonly Record<string, unknown>[];
  readonly complete: boolean;
}

/** Reads the stream as `headers`' caller until `seen` says its text holds what was awaited. */
async function streamUntil(
  headers: Record<string, string>,
  seen: (text: string) => boolean,
): Promise<void> {
  const abort = new AbortController();
  const res = await fetch(`${base}/analytics/stream?size=minute`, {
    headers,
    signal: abort.signal,
  });
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let text = '';
  try {
    while (!seen(text)) {
      const chunk = await reader.read();
      if (chunk.done) throw new Error(`the stream ended; it read ${text}`);
      text += decoder.decode(chunk.value, { stream: true });
    }
  } finally {
    abort.abort();
  }
}

describe('the analytics drill-down and approval health', () => {
  it("answers the events behind a live count, with the internal detail for an operator and the public message only for the tenant's approver", async () => {
    const operator = await as('operator');
    const approver = await as('approver');
    const refuse = rejecterFor('authorization');
    const now = Date.now();
    const refusals = [1, 2, 3].map((n) =>
      auditEvent(
        {
          kind: 'rejected',
          rejected: refuse('not_authorized', undefined, `denied by policy forbid-refunds #${n}`),
          tenant: 'acme',
          tool: 'calculate',
          subject: 'carol',
          runId: 'run-drill',
          proposalId: `drill-${n}`,
        },
        new Date(now),
      ),
    );
    const shown = streamUntil(approver, (text) => text.includes('"code":"not_authorized"'));
    await writeAudit(refusals);
    await shown;

    const { windows } = await getJson<{ windows: Window[] }>('/analytics/windows', operator);
    const refused = (r: Row) => r.code === 'not_authorized' && r.tool === 'calculate';
    const window = windows.find((w) => w.rows.some(refused))!;
    const row = window.rows.find(refused)!;
    const drill = `/analytics/events?size=minute&start=${window.start}&tenant=acme&tool=calculate&rung=authorization&code=not_authorized&disposition=deny`;
    const forOperator = await getJson<EventsPage>(drill, operator);
    expect(forOperator.events).toHaveLength(row.count);
    expect(forOperator.events.map((e) => e['proposalId']).sort()).toEqual([
      'drill-1',
      'drill-2',
      'drill-3',
    ]);
    expect(forOperator.events[0]).toMatchObject({
      rung: 'authorization',
      runId: 'run-drill',
      publicMessage: 'This action is not allowed.',
      internalDetail: expect.stringMatching(/^denied by policy forbid-refunds #\d$/) as unknown,
    });
    expect(typeof forOperator.complete).toBe('boolean');

    const forApprover = await getJson<EventsPage>(drill, approver);
    expect(forApprover.events).toHaveLength(row.count);
    expect(forApprover.events.every((e) => !('internalDetail' in e))).toBe(true);
    expect(JSON.stringify(forApprover)).not.toContain('forbid-refunds');
    expect(forApprover.events[0]).toMatchObject({ publicMessage: 'This action is not allowed.' });

    const viewer = await fetch(base + drill, { headers: await as('viewer') });
    expect(viewer.status).toBe(403);
  }, 60_000);

  it('measures approval health from parked and decided confirmations', async () => {
    const operator = await as('operator');
    const refuse = rejecterFor('confirmation');
    const t = Date.now();
    const about = (id: string) => ({
      tenant: 'acme',
      tool: 'calculate',
      confirmationId: id,
      proposalId: `cp-${id}`,
    });
    const at = (input: AuditInput, ms: number) => auditEvent(input, new Date(t + ms));
    await writeAudit([
      at({ ...about('c1'), kind: 'pending_confirmation' }, 0),
      at({ ...about('c2'), kind: 'pending_confirmation' }, 100),
      at({ ...about('c3'), kind: 'pending_confirmation' }, 200),
      at({ ...about('c4'), kind: 'pending_confirmation' }, 300),
      at(
        {
          ...about('c2'),
          kind: 'rejected',
          rejected: refuse('rejected_by_human', undefined, 'no'),
        },
        1_100,
      ),
      at(
        {
          ...about('c4'),
          kind: 'rejected',
          rejected: refuse('content_changed', undefined, 'stale card'),
          answered: false,
        },
        1_200,
      ),
      at({ ...about('c1'), kind: 'cleared', decidedBy: 'abe' }, 3_000),
      at({ ...about('c3'), kind: 'expired' }, 3_200),
    ]);
    let health: Record<string, unknown> = {};
    await eventually(
      20_000,
      'the approval health to count every decision',
      async () => {
        health = await getJson<Record<string, unknown>>('/analytics/approvals', operator);
        return health['expired'] === 1 && health['approved'] === 1;
      },
      200,
    );
    expect(health).toMatchObject({
      parked: 4,
      approved: 1,
      rejected: 1,
      expired: 1,
      changed: 0,
      approvalRate: 1 / 3,
      medianDecideMs: 2_000,
    });
    const theirs = await getJson<Record<string, unknown>>(
      '/analytics/approvals',
      await bearerFor({ subject: 'gil', tenant: 'globex', roles: ['approver'] }),
    );
    expect(theirs).toMatchObject({ parked: 0, approved: 0, approvalRate: null });
  }, 60_000);
});
