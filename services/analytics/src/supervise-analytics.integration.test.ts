/**
 * The analytics process as `toolgate start analytics` runs it: its own variables only (no
 * integrity key, no Redis URL), as `toolgate-analytics`, ready once it holds the audit partitions,
 * serving /readyz, and stopped by its lifecycle; with the deployment, raising its alerts onto the
 * alerts topic and serving the windows and alerts to operators.
 */
import { createCodec, SILENT_LOGGER } from '@toolgate/platform';
import { auditEvent, rejecterFor, type Alert, type AuditEvent } from '@toolgate/shared';
import { spawn } from 'node:child_process';
import { EventEmitter } from 'node:events';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Kafka } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../../test/support/deadline.js';
import deployment from '../../../test/support/deployment/index.js';
import { gateEnv, identityEnv } from '../../../test/support/gate-harness.js';
import { testNamespace } from '../../../test/support/namespace.js';
import { stackAddresses } from '../../../test/support/stack.js';
import {
  analyticsEnv as analyticsEnvIn,
  dropProvisioned,
  oliviaAs,
  provisionForDeployment,
  writeAudit as writeAuditIn,
} from './analytics-fixtures.test-support.js';
import { superviseAnalytics } from './supervise-analytics.js';

const ns = testNamespace('analytics-main');
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
let kafka: Kafka;

beforeAll(async () => {
  kafka = await provisionForDeployment(ns);
});

afterAll(() => dropProvisioned(ns, kafka));

const analyticsEnv = () => analyticsEnvIn(ns, { TOOLGATE_ANALYTICS_TICK_MS: '200' });

/** Writes `events` to the namespace's audit topic in one transaction, as a stage does. */
const writeAudit = (events: readonly AuditEvent[]) =>
  writeAuditIn(kafka, ns, events, `${ns.id}.writer`);

/** The alerts on the namespace's alerts topic, decoded. */
async function alertsOnTopic(): Promise<Alert[]> {
  const codec = createCodec({
    registryUrl: stackAddresses().schemaRegistryUrl,
    logger: SILENT_LOGGER,
    compatibility: 'NONE',
  });
  const consumer = kafka.consumer({ groupId: `${ns.id}.toolgate.analytics.read-${Date.now()}` });
  const alerts: Alert[] = [];
  await consumer.connect();
  try {
    await consumer.subscribe({ topic: ns.topic('toolgate.alerts'), fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ message }) => {
        const decoded = await codec.decode(message.value, { plainJsonAllowed: false });
        if ('value' in decoded) alerts.push(decoded.value as Alert);
      },
    });
    await eventually(30_000, 'two alerts on the alerts topic', () =>
      Promise.resolve(alerts.length >= 2),
    );
  } finally {
    await consumer.disconnect();
  }
  return alerts;
}

describe('superviseAnalytics', () => {
  it('starts without the integrity key or Redis, answers /readyz once it holds the partitions, and stops', async () => {
    const exits: number[] = [];
    const supervised = await superviseAnalytics({
      env: analyticsEnv(),
      exit: (code) => exits.push(code),
      process: new EventEmitter(),
    });
    const readyz = () => fetch(`http://127.0.0.1:${supervised.port}/readyz`).then((r) => r.status);
    await eventually(
      60_000,
      'the analytics service to be ready',
      async () => (await readyz()) === 200,
      200,
    );
    expect(supervised.service.partitions()).toEqual([0, 1, 2, 3, 4, 5]);
    expect(supervised.service.live()).toEqual([]);
    // The answer names the member and the audit partitions the group gave it.
    const answer = await fetch(`http://127.0.0.1:${supervised.port}/readyz`).then((r) => r.json());
    expect(answer).toEqual({
      status: 'ready',
      instanceId: supervised.config.instanceId,
      groupId: `${ns.id}.toolgate.analytics`,
      partitions: { [ns.topic('toolgate.audit')]: [0, 1, 2, 3, 4, 5] },
    });
    await supervised.lifecycle.stop('test over');
    expect(exits).toEqual([0]);
    expect(supervised.service.membership().partitions).toEqual({});
  });

  it('runs beside the four stages under `toolgate start all`, and stops with them on SIGTERM', async () => {
    const child = spawn(
      process.execPath,
      [
        'packages/cli/bin/toolgate.js',
        'start',
        'all',
        '--config',
        'test/support/deployment/index.ts',
      ],
      {
        cwd: repoRoot,
        env: {
          ...process.env,
          ...gateEnv(ns, { TOOLGATE_INSTANCE_ID: `${ns.id}-all`, TOOLGATE_LOG_LEVEL: 'info' }),
          ...identityEnv('admin'),
        },
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    try {
      await eventually(
        90_000,
        'the analytics service to start beside the stages',
        () => Promise.resolve(out.includes('"msg":"analytics started"')),
        100,
      );
      expect(out).toContain('"msg":"execute started"');
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  }, 150_000);
  it("raises the deployment's alerts onto the alerts topic, counts them in its series, and serves windows and alerts to operators only", async () => {
    const supervised = await superviseAnalytics({
      env: analyticsEnv(),
      deployment,
      exit: () => undefined,
      process: new EventEmitter(),
    });
    const base = `http://127.0.0.1:${supervised.port}`;
    try {
      const now = Date.now();
      const facts = { tenant: 'acme', tool: 'calculate', subject: 'carol', runId: 'loops' };
      const limited = rejecterFor('limits')('run_call_limit', undefined, 'twelve calls');
      const forged = rejecterFor('authentication')('forged_envelope', undefined, 'bad tag');
      await writeAudit([
        auditEvent({ ...facts, proposalId: 'p1', kind: 'validated' }, new Date(now - 2000)),
        auditEvent(
          { ...facts, proposalId: 'p2', kind: 'rejected', rejected: limited },
          new Date(now - 1000),
        ),
        auditEvent({ proposalId: 'p3', kind: 'rejected', rejected: forged }, new Date(now)),
      ]);
      const alerts = await alertsOnTopic();
      expect(alerts.map((a) => [a.rule, a.subject.kind, a.subject.id]).sort()).toEqual([
        ['forgery', 'gate', 'integrity'],
        ['runaway_run', 'run', 'loops'],
      ]);
      const metrics = await fetch(`${base}/metrics`).then((r) => r.text());
      expect(metrics).toMatch(/toolgate_analytics_alerts_total\{[^}]*rule="runaway_run"[^}]*\} 1/);
      expect(metrics).toMatch(/toolgate_analytics_events_consumed_total\{[^}]*\} 3/);

      const asOperator = await oliviaAs('operator');
      expect((await fetch(`${base}/analytics/alerts`)).status).toBe(401);
      const viewer = await oliviaAs('viewer');
      expect((await fetch(`${base}/analytics/alerts`, { headers: viewer })).status).toBe(403);
      const served = (await fetch(`${base}/analytics/alerts`, { headers: asOperator }).then((r) =>
        r.json(),
      )) as { alerts: Alert[] };
      expect(served.alerts.map((a) => a.rule)).toEqual(['runaway_run']);
      await eventually(10_000, 'the live minute window to show the refusal', async () => {
        const body = (await fetch(`${base}/analytics/windows?size=minute`, {
          headers: asOperator,
        }).then((r) => r.json())) as {
          windows: { rows: { code: string | null; count: number }[] }[];
        };
        return body.windows.some((w) => w.rows.some((r) => r.code === 'run_call_limit'));
      });
    } finally {
      await supervised.lifecycle.stop('test over');
    }
  }, 90_000);
});
