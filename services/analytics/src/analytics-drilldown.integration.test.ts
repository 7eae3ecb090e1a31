/**
 * The analytics process's drill-down and approval health on the real stack: audit events written
 * as the stages write them, then the events behind a live count read back over HTTP (with the
 * internal detail for an operator, without it for a tenant's approver), the refusal seen on the
 * stream, and the approval health of parked and decided confirmations.
 */
import { ANALYTICS_PRINCIPAL, createCodec, type Env } from '@toolgate/platform';
import {
  auditEvent,
  MESSAGE_SCHEMAS,
  mintSession,
  rejecterFor,
  type AuditEvent,
  type AuditInput,
} from '@toolgate/shared';
import { EventEmitter } from 'node:events';
import type { Kafka } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeAuditEvents } from '../../../test/support/audit-writer.js';
import { eventually } from '../../../test/support/deadline.js';
import deployment, {
  TEST_SESSION_ISSUER,
  TEST_SESSION_SECRET,
} from '../../../test/support/deployment/index.js';
import { identityEnv } from '../../../test/support/gate-harness.js';
import {
  dropNamespace,
  provisionNamespace,
  testNamespace,
} from '../../../test/support/namespace.js';
import { dropSubjects } from '../../../test/support/registry-cleanup.js';
import { kafkaClient, stackAddresses } from '../../../test/support/stack.js';
import { superviseAnalytics, type SupervisedAnalytics } from './supervise-analytics.js';

const ns = testNamespace('analytics-drill');
const SILENT = {
  warn: () => undefined,
  error: () => undefined,
  info: () => undefined,
  debug: () => undefined,
};
let kafka: Kafka;
let supervised: SupervisedAnalytics;
let base: string;

beforeAll(async () => {
  await provisionNamespace(ns, {
    tools: deployment.tools.map((t) => t.name),
    tenants: deployment.tenants,
  });
  kafka = kafkaClient(ns.id);
  const stack = stackAddresses();
  const env: Env = {
    TOOLGATE_KAFKA_BROKERS: stack.kafkaBrokers.join(','),
    ...identityEnv(ANALYTICS_PRINCIPAL),
    TOOLGATE_SCHEMA_REGISTRY_URL: stack.schemaRegistryUrl,
    TOOLGATE_TOPIC_PREFIX: `${ns.id}.`,
    TOOLGATE_GROUP_PREFIX: `${ns.id}.`,
    TOOLGATE_HTTP_PORT: '0',
    TOOLGATE_LOG_LEVEL: 'silent',
  };
  supervised = await superviseAnalytics({
    env,
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
  await dropNamespace(ns, { kafka });
  await dropSubjects(stackAddresses().schemaRegistryUrl, ns.id);
});

let writes = 0;

/** Writes `events` to the namespace's audit topic in one transaction, as a stage does. */
async function writeAudit(events: readonly AuditEvent[]): Promise<void> {
  const topic = ns.topic('toolgate.audit');
  const codec = createCodec({
    registryUrl: stackAddresses().schemaRegistryUrl,
    logger: SILENT,
    compatibility: 'NONE',
  });
  await codec.register(`${topic}-value`, MESSAGE_SCHEMAS.audit);
  const writer = { kafka, codec, topic, transactionalId: `${ns.id}.writer.${writes++}` };
  await writeAuditEvents(writer, events, { chunk: events.length });
}

/** Headers of a session of `acme` with `roles`. */
async function as(...roles: string[]): Promise<Record<string, string>> {
  const token = await mintSession(
    { subject: 'olivia', tenant: 'acme', roles },
    TEST_SESSION_SECRET,
    {
      issuer: TEST_SESSION_ISSUER,
      ttlSeconds: 300,
      now: new Date(),
    },
  );
  return { authorization: `Bearer ${token}` };
}

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
    const globex = await mintSession(
      { subject: 'gil', tenant: 'globex', roles: ['approver'] },
      TEST_SESSION_SECRET,
      { issuer: TEST_SESSION_ISSUER, ttlSeconds: 300, now: new Date() },
    );
    const theirs = await getJson<Record<string, unknown>>('/analytics/approvals', {
      authorization: `Bearer ${globex}`,
    });
    expect(theirs).toMatchObject({ parked: 0, approved: 0, approvalRate: null });
  }, 60_000);
});
