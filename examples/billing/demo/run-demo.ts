/**
 * One demo run against a running gate: seeds the run's objects, plays the scripted agent and
 * approver, reads the run's audit events back and compares everything with what the workload
 * expected. Returns the report; the caller prints it and decides the exit code.
 */
import { createAgentClient } from '@toolgate/agent-client';
import {
  createBus,
  createCodec,
  createRedisObjectStore,
  createStore,
  gateTopics,
  OBJECT_NAMESPACE,
  SILENT_LOGGER,
} from '@toolgate/platform';
import { mintSession, type AuditEvent } from '@toolgate/shared';
import { USERS } from '../data.js';
import { approvalApi } from './approval-api.js';
import { auditTable, readRunAudit } from './audit-table.js';
import { demoObjects } from './demo-objects.js';
import type { DemoSettings } from './demo-settings.js';
import {
  auditExpectationsOf,
  missingAudit,
  rungsNeverRefused,
  stepMismatch,
} from './expectations.js';
import { trackProgress } from './progress.js';
import { Script, type DemoSessions } from './script.js';
import { runWorkload, SCENARIOS, WORKLOAD_SIZE } from './workload.js';

/** What a run found. */
export interface DemoReport {
  /** The closing table of outcomes by stage, code and kind. */
  readonly table: string;
  /** How many proposals were sent. */
  readonly proposals: number;
  /** One line per difference from the script; empty when everything was as expected. */
  readonly mismatches: readonly string[];
}

/** How long the demo waits for one terminal observation, in ms. */
const OBSERVATION_TIMEOUT_MS = 60_000;

/** Plays the workload; `say` prints a phase line. */
export async function runDemo(
  settings: DemoSettings,
  say: (line: string) => void,
): Promise<DemoReport> {
  const { config, runTag } = settings;
  const sinceMs = Date.now() - 1_000;
  const store = createStore({
    url: config.redisUrl,
    prefix: config.redisPrefix,
    connectionName: 'toolgate-demo',
  });
  const bus = createBus({
    brokers: [...config.kafkaBrokers],
    clientId: 'toolgate-demo',
    logger: SILENT_LOGGER,
  });
  const codec = createCodec({
    registryUrl: config.schemaRegistryUrl,
    logger: SILENT_LOGGER,
    compatibility: 'NONE',
  });
  const sessions = await mintSessions(settings.sessionSecret);
  const client = await createAgentClient({ env: settings.env, session: sessions.alice });
  try {
    const objects = createRedisObjectStore(store, OBJECT_NAMESPACE);
    const seeded = demoObjects(runTag);
    await objects.seed(seeded.objects);
    say(
      `seeded this run's invoices, payment and draft (${seeded.objects.map((o) => o.id).join(', ')})`,
    );
    say(
      `the scripted agent sends ${WORKLOAD_SIZE} proposals in ${SCENARIOS.length} runs for acme and globex; a scripted approver answers the cards`,
    );
    const progress = trackProgress(client, WORKLOAD_SIZE, process.stdout);
    const script = new Script({
      client: progress.client,
      sessions,
      approvals: approvalApi(settings.approvalUrl),
      objects,
      ids: seeded.ids,
      runTag,
      timeoutMs: OBSERVATION_TIMEOUT_MS,
    });
    try {
      await runWorkload(script);
    } finally {
      progress.finish();
    }
    say('reading this run back from the audit topic');
    const events = await readRunAudit(
      bus,
      codec,
      { topic: gateTopics(config.topicPrefix).audit, sinceMs, groupPrefix: config.groupPrefix },
      { runIdPrefix: script.runId(''), confirmationIds: script.confirmationIds },
    );
    return {
      table: auditTable(events),
      proposals: script.steps.length,
      mismatches: mismatchesOf(script, events),
    };
  } finally {
    await client.close();
    await bus.close();
    await store.close();
  }
}

function mismatchesOf(script: Script, events: readonly AuditEvent[]): string[] {
  const lines: string[] = [];
  if (script.steps.length !== WORKLOAD_SIZE) {
    lines.push(`the workload sent ${script.steps.length} proposals, not ${WORKLOAD_SIZE}`);
  }
  for (const step of script.steps) {
    const why = stepMismatch(step);
    if (why !== undefined)
      lines.push(`[${step.scenario}] ${step.label} (${step.proposalId}): ${why}`);
  }
  for (const check of script.checks) {
    if (!check.ok) lines.push(`[${check.scenario}] ${check.label}: ${check.detail}`);
  }
  const wanted = [...auditExpectationsOf(script.steps), ...script.audits];
  for (const missing of missingAudit(wanted, events)) {
    lines.push(
      `[${missing.scenario}] ${missing.label}: no audit event ${JSON.stringify(missing.match)}`,
    );
  }
  const never = rungsNeverRefused(events);
  if (never.length > 0) lines.push(`no refusal at ${never.join(', ')} in the audit table`);
  return lines;
}

async function mintSessions(secret: string): Promise<DemoSessions> {
  const now = new Date();
  const ttlSeconds = 8 * 3600;
  const mint = (user: (typeof USERS)[keyof typeof USERS], at = now, ttl = ttlSeconds) =>
    mintSession(user, secret, { now: at, ttlSeconds: ttl });
  return {
    alice: await mint(USERS.alice),
    bob: await mint(USERS.bob),
    carol: await mint(USERS.carol),
    expired: await mint(USERS.alice, new Date(now.getTime() - 3_600_000), 60),
    forged: await mintSession(USERS.alice, 'not-the-gate-secret-but-long-enough-000000', {
      now,
      ttlSeconds,
    }),
  };
}
