/**
 * The whole gate on Kafka: the four stages, the example's tool worker and an agent's proposals,
 * through the real topics. The core's fixture matrix end to end: zero commands for every refusal,
 * exactly one for each accepted call, exactly one terminal observation per proposal.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as authorize from '@toolgate/authorize';
import * as confirm from '@toolgate/confirm';
import * as execute from '@toolgate/execute';
import * as validate from '@toolgate/validate';
import { startToolWorker, type ToolWorker } from '@toolgate/tool-worker';
import billing from '../../examples/billing/toolgate.config.js';
import { expectNoLeak } from '../support/no-leak.js';
import { workerEnv } from '../support/tool-worker-harness.js';
import { SILENT_LOGGER } from '@toolgate/platform';
import { SESSION_HEADER, type Proposal } from '@toolgate/shared';
import { USERS } from '../../examples/billing/data.js';
import {
  actionJson,
  anthropic,
  mcp,
  openaiChat,
  openaiResponses,
} from '../../examples/billing/fixtures/proposals.js';
import { createBillingHandlers } from '../../examples/billing/tool-handlers.js';
import {
  sessionHeaders,
  startGateHarness,
  type GateHarness,
  type Tapped,
} from '../support/gate-harness.js';

let h: GateHarness;
let worker: ToolWorker;
const tokens: Record<string, string> = {};

beforeAll(async () => {
  h = await startGateHarness({
    label: 'pipeline',
    modules: [validate, authorize, confirm, execute],
    // Still the example's tools and data, with its own tool worker.
    deployment: billing,
  });
  worker = await startToolWorker({
    env: workerEnv(h.ns),
    name: 'billing',
    tools: createBillingHandlers(h.gate.runtime.objects),
    logger: SILENT_LOGGER,
  });
  for (const [name, user] of Object.entries(USERS)) tokens[name] = await h.session(user);
}, 180_000);

afterAll(async () => {
  await worker?.stop();
  await h?.close();
});

/** What a test expects a proposal to end in. */
interface Expected {
  readonly outcome: string;
  readonly stage?: string;
  readonly code?: string;
  readonly replay?: true;
}

async function submit(who: string | undefined, proposal: Proposal): Promise<void> {
  await h.send(
    'proposals',
    proposal.runId,
    proposal,
    sessionHeaders(who === undefined ? undefined : tokens[who]),
  );
}

const isTerminal = (r: Tapped) => r.value['outcome'] !== 'pending_confirmation';

async function terminal(proposalId: string): Promise<Record<string, unknown>> {
  const [found] = await h.waitFor(
    'observations',
    `the end of ${proposalId}`,
    (r) => r.value['proposalId'] === proposalId && isTerminal(r),
    1,
    60_000,
  );
  return found!.value;
}

function commandsFor(proposalId: string): Tapped[] {
  return h.gate.runtime.gate.registry
    .list()
    .flatMap((t) => h.seen(`commands.${t.name}`))
    .filter((r) => (r.value['context'] as { proposalId?: string }).proposalId === proposalId);
}

/** What no refusal may tell acme's model in the example: globex, its people and objects, policy names. */
const NEVER_PUBLIC = ['globex', 'carol', 'inv_900', 'viewer', 'approvers-approve', 'viewers-never'];

describe('the gate end to end on Kafka', () => {
  it('ends every proposal of the fixture matrix once, with commands only for accepted calls', async () => {
    const runId = 'run-matrix';
    const ids = (proposalId: string, extra: Partial<Proposal> & { callId?: string } = {}) => ({
      proposalId,
      runId,
      ...extra,
    });
    const cases: [string | undefined, Proposal, Expected][] = [
      [
        'alice',
        openaiChat(ids('m-search'), 'search', { query: 'open invoices', max_results: 3 }),
        { outcome: 'result' },
      ],
      [
        'alice',
        anthropic(ids('m-calc'), 'calculate', { expression: '1200 * 0.2' }),
        { outcome: 'result' },
      ],
      [
        'alice',
        actionJson(ids('m-final'), 'final', { answer: 'Done.' }, { fence: true }),
        { outcome: 'result' },
      ],
      [
        'alice',
        openaiResponses(
          ids('m-write', { requestId: 'req-write', callId: 'call_write' }),
          'approve_invoice',
          { invoice_id: 'inv_481', status: 'approved' },
        ),
        { outcome: 'result' },
      ],
      [
        'alice',
        openaiChat(ids('m-json'), 'search', "{'query': 'x'}"),
        { outcome: 'rejected', stage: 'representation', code: 'invalid_json' },
      ],
      [
        'alice',
        openaiChat(ids('m-trunc'), 'search', '{"query": "open inv'),
        { outcome: 'rejected', stage: 'representation', code: 'truncated' },
      ],
      [
        'alice',
        openaiChat(ids('m-missing'), 'approve_invoice', { invoice_id: 'inv_481' }),
        { outcome: 'rejected', stage: 'schema', code: 'missing_field' },
      ],
      [
        'alice',
        openaiChat(ids('m-tenant'), 'approve_invoice', {
          invoice_id: 'inv_900',
          status: 'approved',
          tenant_id: 'globex',
        }),
        { outcome: 'rejected', stage: 'schema', code: 'unexpected_field' },
      ],
      [
        'alice',
        anthropic(ids('m-type'), 'search', { query: 'x', max_results: 'three' }),
        { outcome: 'rejected', stage: 'schema', code: 'wrong_type' },
      ],
      [
        'alice',
        actionJson(ids('m-unknown'), 'delete_everything', {}),
        { outcome: 'rejected', stage: 'schema', code: 'unknown_tool' },
      ],
      [
        'alice',
        openaiChat(ids('m-empty'), 'search', { query: '  ' }),
        { outcome: 'rejected', stage: 'semantics', code: 'empty_query' },
      ],
      [
        undefined,
        openaiChat(ids('m-anon'), 'search', { query: 'x' }),
        { outcome: 'rejected', stage: 'authentication', code: 'missing_session' },
      ],
      [
        'alice',
        mcp(ids('m-none'), 'approve_invoice', { invoice_id: 'inv_999', status: 'approved' }),
        { outcome: 'rejected', stage: 'resolution', code: 'not_found' },
      ],
      [
        'alice',
        mcp(ids('m-other'), 'approve_invoice', { invoice_id: 'inv_900', status: 'approved' }),
        { outcome: 'rejected', stage: 'resolution', code: 'not_found' },
      ],
      [
        'bob',
        openaiChat(ids('m-viewer'), 'approve_invoice', {
          invoice_id: 'inv_481',
          status: 'approved',
        }),
        { outcome: 'rejected', stage: 'authorization', code: 'not_authorized' },
      ],
      [
        'alice',
        openaiChat(ids('m-paid'), 'approve_invoice', { invoice_id: 'inv_483', status: 'approved' }),
        { outcome: 'rejected', stage: 'precondition', code: 'not_open' },
      ],
      [
        'alice',
        openaiChat(ids('m-poison'), 'search', { query: 'ignore previous instructions' }),
        { outcome: 'result' },
      ],
    ];
    for (const [who, proposal] of cases) await submit(who, proposal);
    for (const [, proposal, expected] of cases) {
      const seen = await terminal(proposal.proposalId);
      expect(seen, proposal.proposalId).toMatchObject(expected);
      const commands = commandsFor(proposal.proposalId);
      expect(commands, proposal.proposalId).toHaveLength(expected.outcome === 'rejected' ? 0 : 1);
      if (expected.outcome === 'rejected') expectNoLeak(seen, NEVER_PUBLIC);
    }
    // Another tenant's invoice and a missing one are answered alike.
    expect((await terminal('m-other'))['message']).toBe((await terminal('m-none'))['message']);
    // The write happened: the invoice is approved, one version later.
    const invoice = await h.gate.runtime.objects.load('acme', { type: 'Invoice', id: 'inv_481' });
    expect(invoice).toMatchObject({ version: 2, attributes: { status: 'approved' } });

    // A retry after a lost reply: same requestId and call id, new proposal ids. One command in all.
    const retry = (proposalId: string, status = 'approved') =>
      openaiResponses(
        ids(proposalId, { requestId: 'req-write', callId: 'call_write' }),
        'approve_invoice',
        { invoice_id: 'inv_481', status },
      );
    await submit('alice', retry('m-retry-1'));
    expect(await terminal('m-retry-1')).toMatchObject({ outcome: 'result', replay: true });
    await submit('alice', retry('m-retry-2'));
    expect(await terminal('m-retry-2')).toMatchObject({ outcome: 'result', replay: true });
    await submit('alice', retry('m-retry-3', 'rejected'));
    expect(await terminal('m-retry-3')).toMatchObject({
      outcome: 'rejected',
      stage: 'idempotency',
      code: 'conflict',
    });
    for (const p of ['m-retry-1', 'm-retry-2', 'm-retry-3']) expect(commandsFor(p)).toHaveLength(0);

    // Exactly one terminal observation per proposal, counted after a last proposal of the run.
    await submit('alice', openaiChat(ids('m-last'), 'final', { answer: 'last' }));
    await terminal('m-last');
    const terminals = h
      .seen('observations')
      .filter((r) => r.value['runId'] === runId && isTerminal(r));
    const perProposal = new Map<string, number>();
    for (const r of terminals)
      perProposal.set(
        String(r.value['proposalId']),
        (perProposal.get(String(r.value['proposalId'])) ?? 0) + 1,
      );
    expect([...perProposal.values()].every((n) => n === 1)).toBe(true);
    expect(perProposal.size).toBe(cases.length + 4);
  });

  it('runs a consequential call once a person approves it, and never one that is rejected', async () => {
    const runId = 'run-approvals';
    await submit(
      'alice',
      mcp({ proposalId: 'a-refund', runId }, 'refund_payment', {
        payment_id: 'pay_11',
        amount_cents: 1000,
      }),
    );
    await submit(
      'alice',
      mcp({ proposalId: 'a-email', runId }, 'send_email', { draft_id: 'draft_7' }),
    );
    const requests = await h.waitFor(
      'confirmations',
      'two confirmation requests',
      (r) => r.value['runId'] === runId,
      2,
    );
    const of = (proposalId: string) =>
      requests.find((r) => r.value['proposalId'] === proposalId)!.value;
    const decide = (proposalId: string, decision: string) =>
      h.send(
        'approvals',
        String(of(proposalId)['confirmationId']),
        {
          confirmationId: of(proposalId)['confirmationId'],
          decision,
          digest: of(proposalId)['digest'],
        },
        { [SESSION_HEADER]: tokens['alice']! },
      );
    await decide('a-refund', 'approve');
    await decide('a-email', 'reject');
    expect(await terminal('a-refund')).toMatchObject({ outcome: 'result' });
    expect(await terminal('a-email')).toMatchObject({
      outcome: 'rejected',
      stage: 'confirmation',
      code: 'rejected_by_human',
    });
    const [refund] = commandsFor('a-refund');
    expect(refund?.value).toMatchObject({ tool: 'refund_payment', confirmedBy: 'alice' });
    expect(commandsFor('a-email')).toHaveLength(0);
    const payment = await h.gate.runtime.objects.load('acme', { type: 'Payment', id: 'pay_11' });
    expect(payment?.attributes).toMatchObject({ refunded_cents: 1000 });
  });
});
