/**
 * One scripted run against a running gate: seeds the run's objects, plays the scripted agents
 * (one client per tenant, each as its tenant's principal) and approver, reads the run's audit
 * events back as `toolgate-analytics` and compares everything with what the workload expected.
 * Returns the report; the caller prints it and decides the exit code.
 */
import { analyticsGroupPrefix, gateTopics } from '@toolgate/platform';
import type { AuditEvent } from '@toolgate/shared';
import { approvalApi } from './approval-api.js';
import { auditTable, readRunAudit } from './audit-table.js';
import type { DemoClients } from './demo-clients.js';
import { demoObjects } from './demo-objects.js';
import type { DemoSettings } from './demo-settings.js';
import {
  auditExpectationsOf,
  missingAudit,
  rungsNeverRefused,
  stepMismatch,
} from './expectations.js';
import { trackProgress } from './progress.js';
import { Script } from './script.js';
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

/** Plays the workload through `clients`; `say` prints a phase line. */
export async function runDemo(
  settings: DemoSettings,
  clients: DemoClients,
  say: (line: string) => void,
): Promise<DemoReport> {
  const { config, runTag } = settings;
  const sinceMs = Date.now() - 1_000;
  const seeded = demoObjects(runTag);
  await clients.objects.seed(seeded.objects);
  say(
    `seeded this run's invoices, payment and draft (${seeded.objects.map((o) => o.id).join(', ')})`,
  );
  say(
    `the scripted agents of acme and globex send ${WORKLOAD_SIZE} proposals in ${SCENARIOS.length} runs, each as its tenant's principal; a scripted approver answers the cards`,
  );
  const progress = trackProgress(clients.agents, WORKLOAD_SIZE, process.stdout);
  const script = new Script({
    client: progress.client,
    sessions: clients.sessions,
    approvals: approvalApi(settings.approvalUrl),
    objects: clients.objects,
    ids: seeded.ids,
    runTag,
    timeoutMs: OBSERVATION_TIMEOUT_MS,
  });
  try {
    await runWorkload(script);
  } finally {
    progress.finish();
  }
  say('reading this run back from the audit topic, as toolgate-analytics');
  const events = await readRunAudit(
    clients.analytics,
    clients.codec,
    {
      topic: gateTopics(config.topicPrefix).audit,
      sinceMs,
      groupPrefix: `${analyticsGroupPrefix(config.groupPrefix)}.`,
    },
    { runIdPrefix: script.runId(''), confirmationIds: script.confirmationIds },
  );
  return {
    table: auditTable(events),
    proposals: script.steps.length,
    mismatches: mismatchesOf(script, events),
  };
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
