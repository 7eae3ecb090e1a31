/**
 * The judge on a real, tiny run: the four stages and the example's tool worker on the stack, a
 * few proposals of each ending, then the judge reads the namespace's topics and effect log back.
 * A clean run passes; effects forged into the log (no command, a key used twice) are caught.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as authorize from '@toolgate/authorize';
import * as confirm from '@toolgate/confirm';
import * as execute from '@toolgate/execute';
import * as validate from '@toolgate/validate';
import { startToolWorker, type ToolWorker } from '@toolgate/tool-worker';
import { SILENT_LOGGER } from '@toolgate/platform';
import type { Proposal } from '@toolgate/shared';
import { USERS } from '../../examples/billing/data.js';
import { openaiChat } from '../../examples/billing/fixtures/proposals.js';
import { createBillingHandlers } from '../../examples/billing/tool-handlers.js';
import billing from '../../examples/billing/toolgate.config.js';
import {
  sessionHeaders,
  startGateHarness,
  type GateHarness,
} from '../../test/support/gate-harness.js';
import { stackConfig } from '../../test/support/stack.js';
import { workerEnv } from '../../test/support/tool-worker-harness.js';
import type { ChaosRunFacts, SentProposal } from './chaos-facts.js';
import { judgeRun } from './judge-run.js';

let h: GateHarness;
let worker: ToolWorker;
let facts: ChaosRunFacts;

const runId = 'run-judge';
const SENT: readonly [string, string, Proposal, SentProposal['expected']][] = [
  [
    'alice',
    'search',
    openaiChat({ proposalId: 'j-search', runId }, 'search', { query: 'open invoices' }),
    { kind: 'execute', replay: false },
  ],
  [
    'alice',
    'write',
    openaiChat({ proposalId: 'j-approve', runId }, 'approve_invoice', {
      invoice_id: 'inv_481',
      status: 'approved',
    }),
    { kind: 'execute', replay: false },
  ],
  [
    'bob',
    'viewer_write',
    openaiChat({ proposalId: 'j-viewer', runId }, 'approve_invoice', {
      invoice_id: 'inv_482',
      status: 'approved',
    }),
    { kind: 'refused', stage: 'authorization', code: 'not_authorized' },
  ],
  [
    'alice',
    'unknown_tool',
    openaiChat({ proposalId: 'j-unknown', runId }, 'teleport', { to: 'x' }),
    { kind: 'refused', stage: 'schema', code: 'unknown_tool' },
  ],
];

beforeAll(async () => {
  h = await startGateHarness({
    label: 'judge',
    modules: [validate, authorize, confirm, execute],
    deployment: billing,
  });
  worker = await startToolWorker({
    env: workerEnv(h.ns),
    name: 'billing',
    tools: createBillingHandlers(h.gate.runtime.objects),
    logger: SILENT_LOGGER,
  });
  const startedAt = Date.now();
  const sent: SentProposal[] = [];
  for (const [who, label, proposal, expected] of SENT) {
    const token = await h.session(USERS[who as keyof typeof USERS]);
    await h.send('proposals', proposal.runId, proposal, sessionHeaders(token));
    sent.push({ proposalId: proposal.proposalId, label, expected, sentAt: Date.now() });
  }
  await h.waitFor(
    'observations',
    'an end for every proposal',
    (r) => r.value['outcome'] !== 'pending_confirmation',
    SENT.length,
    90_000,
  );
  const endedAt = Date.now() + 1_000;
  facts = {
    mode: 'quick',
    seed: 1,
    rate: 1,
    startedAt,
    endedAt,
    faults: [
      {
        id: 1,
        kind: 'kill_stage',
        target: 'execute#1',
        injectedAt: startedAt,
        recoveredAt: startedAt + 1,
        overlapping: false,
      },
    ],
    sent,
    space: { topicPrefix: `${h.ns.id}.`, redisPrefix: h.ns.redisPrefix },
    stack: stackConfig(),
    instancesPerStage: 1,
    toolWorkers: 1,
  };
  await new Promise((r) => setTimeout(r, Math.max(0, endedAt - Date.now())));
}, 240_000);

afterAll(async () => {
  await worker?.stop();
  await h?.close();
});

describe('judgeRun on the stack', () => {
  it('passes a clean run, having read every topic and the effect log', async () => {
    const report = await judgeRun(facts);
    expect(report.invariants).toEqual({
      one_terminal: { checked: 4, broken: 0, examples: [] },
      no_effect_without_acceptance: { checked: 1, broken: 0, examples: [] },
      one_effect_per_key: { checked: 1, broken: 0, examples: [] },
      nothing_lost: { checked: 4, broken: 0, examples: [] },
    });
    expect(report.ok).toBe(true);
    expect(report.seen).toMatchObject({
      proposals: 4,
      observations: 4,
      commands: 2,
      results: 2,
      quarantine: 0,
      effects: 1,
    });
    expect(report.seen?.audit).toBeGreaterThanOrEqual(2);
    expect(report.rows).toMatchObject([{ kind: 'kill_stage', injected: 1 }]);
    expect(report.rows[0]?.holdUpMs.max).toBeGreaterThan(0);
  }, 240_000);

  it('catches an effect without a command, and a second effect under one key', async () => {
    const objects = h.gate.runtime.objects;
    const [real] = await objects.effects('acme');
    const payment = { type: 'Payment', id: 'pay_11' };
    const at = new Date().toISOString();
    const forged = {
      idempotencyKey: 'key-forged',
      commandId: 'cmd-forged',
      tool: 'refund_payment',
    };
    await objects.compareAndSet(
      payment,
      'acme',
      1,
      { amount_cents: 5_000, refunded_cents: 1 },
      {
        ...forged,
        proposalId: 'j-viewer',
        at,
      },
    );
    await objects.compareAndSet(
      payment,
      'acme',
      2,
      { amount_cents: 5_000, refunded_cents: 2 },
      {
        idempotencyKey: real?.idempotencyKey ?? '',
        commandId: real?.commandId ?? '',
        proposalId: real?.proposalId ?? '',
        tool: 'approve_invoice',
        at,
      },
    );
    const report = await judgeRun(facts);
    expect(report.ok).toBe(false);
    expect(report.invariants.no_effect_without_acceptance).toMatchObject({ checked: 3, broken: 1 });
    expect(report.invariants.no_effect_without_acceptance.examples[0]).toMatch(
      /for j-viewer: execute issued no command cmd-forged$/,
    );
    expect(report.invariants.one_effect_per_key).toMatchObject({ checked: 2, broken: 1 });
    expect(report.rows[0]?.broken).toMatchObject({
      no_effect_without_acceptance: 1,
      one_effect_per_key: 1,
    });
  }, 240_000);
});
