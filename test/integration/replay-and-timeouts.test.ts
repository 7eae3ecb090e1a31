/**
 * Whose outcome a retry is replayed, and how a timeout ends, through the whole gate on Kafka: the
 * four stages and a tool worker of the test deployment. A stored outcome is replayed only to the
 * user who caused it; a read that did not answer in time may be retried, a write's outcome stays
 * unknown and a retry looks its key up.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as authorize from '@toolgate/authorize';
import * as confirm from '@toolgate/confirm';
import * as execute from '@toolgate/execute';
import * as validate from '@toolgate/validate';
import { startToolWorker, type ToolHandler, type ToolWorker } from '@toolgate/tool-worker';
import { EXAMPLE_WORKER, SILENT_LOGGER } from '@toolgate/platform';
import type { Principal, Proposal } from '@toolgate/shared';
import deployment, {
  createTestHandlers,
  NEVER_PUBLIC,
  USERS,
} from '../support/deployment/index.js';
import { withTimeouts } from '../support/execute-fixtures.js';
import { sessionHeaders, startGateHarness, type GateHarness } from '../support/gate-harness.js';
import { expectNoLeak } from '../support/no-leak.js';
import { openaiChat, type ProposalIds } from '../support/proposals.js';
import { workerEnv } from '../support/tool-worker-harness.js';

/** `lookup` (a read) answers within 2 s, `close_ticket` (a write) within 3 s, or they time out. */
const DEPLOYMENT = withTimeouts(deployment, { lookup: 2000, close_ticket: 3000 });

/** A second approver of alice's tenant: the same rights, another user. */
const DAVE: Principal = { subject: 'dave', tenant: 'acme', roles: ['approver'] };

let h: GateHarness;
let worker: ToolWorker;
const tokens = new Map<string, string>();
/** Proposals whose handler never answers (it ignores the deadline's signal, too). */
const silent = new Set<string>();
let releaseSilent: () => void = () => undefined;
const silence = new Promise<void>((resolve) => (releaseSilent = resolve));

/** `handler`, except for the proposals in {@link silent}: those never answer. */
const unlessSilent =
  (handler: ToolHandler): ToolHandler =>
  async (command, context) => {
    if (!silent.has(command.context.proposalId)) return handler(command, context);
    await silence;
    throw new Error('released at the end of the file');
  };

beforeAll(async () => {
  h = await startGateHarness({
    label: 'replay-timeouts',
    modules: [validate, authorize, confirm, execute],
    deployment: DEPLOYMENT,
  });
  const handlers = createTestHandlers(h.gate.runtime.objects);
  worker = await startToolWorker({
    env: workerEnv(h.ns),
    name: EXAMPLE_WORKER.name,
    tools: {
      ...handlers,
      lookup: unlessSilent(handlers.lookup!),
      close_ticket: unlessSilent(handlers.close_ticket!),
    },
    logger: SILENT_LOGGER,
  });
  for (const user of [USERS.alice, USERS.carol, DAVE]) {
    tokens.set(user.subject, await h.session(user));
  }
}, 180_000);

afterAll(async () => {
  releaseSilent();
  await worker?.stop();
  await h?.close();
});

async function submit(who: string, proposal: Proposal): Promise<void> {
  await h.send('proposals', proposal.runId, proposal, sessionHeaders(tokens.get(who)));
}

async function terminal(proposalId: string): Promise<Record<string, unknown>> {
  const [found] = await h.waitFor(
    'observations',
    `the end of ${proposalId}`,
    (r) => r.value['proposalId'] === proposalId && r.value['outcome'] !== 'pending_confirmation',
    1,
    60_000,
  );
  return found!.value;
}

/** The commands of `tool` published for the proposals of `runId`. */
function commandsOf(tool: string, runId: string) {
  return h
    .seen(`commands.${tool}`)
    .filter((r) => (r.value['context'] as { runId?: string }).runId === runId);
}

const contentOf = (o: Record<string, unknown>) => (o['result'] as { content: string }).content;

describe('idempotency per user', () => {
  it('never replays one user the outcome of another user of the tenant who reused the ids', async () => {
    // Two users of acme whose agents both number their calls 1, 2, 3 under the same request id.
    const ids = (proposalId: string): ProposalIds => ({
      proposalId,
      runId: `run-${proposalId}`,
      requestId: 'req-shared',
      callId: '1',
    });
    const close = (proposalId: string) =>
      openaiChat(ids(proposalId), 'close_ticket', { ticket_id: 'tkt_1', resolution: 'done' });

    await submit('alice', close('u-alice-1'));
    const alices = await terminal('u-alice-1');
    expect(alices).toMatchObject({ outcome: 'result', result: { withheld: false } });
    expect(contentOf(alices)).toContain('closed');

    // Dave's call climbs the ladder as his own: the ticket alice closed is no longer open.
    await submit('dave', close('u-dave-1'));
    const daves = await terminal('u-dave-1');
    expect(daves).not.toHaveProperty('replay');
    expect(daves).not.toHaveProperty('result');
    expect(daves).toMatchObject({ outcome: 'rejected', stage: 'precondition', code: 'not_open' });
    expectNoLeak(daves, [...NEVER_PUBLIC, 'alice', contentOf(alices)]);
    expect(commandsOf('close_ticket', 'run-u-dave-1')).toHaveLength(0);

    // Alice's own retry is still a replay of her outcome, and runs nothing.
    await submit('alice', close('u-alice-2'));
    const again = await terminal('u-alice-2');
    expect(again).toMatchObject({ outcome: 'result', replay: true });
    expect(contentOf(again)).toBe(contentOf(alices));
    expect(commandsOf('close_ticket', 'run-u-alice-2')).toHaveLength(0);
    expect(commandsOf('close_ticket', 'run-u-alice-1')).toHaveLength(1);
  });
});

describe('timeouts by side-effect class', () => {
  it('tells the agent that a read which timed out may be retried, and runs the retry', async () => {
    const ids = (proposalId: string): ProposalIds => ({
      proposalId,
      runId: 'run-read-timeout',
      requestId: 'req-read',
      callId: 'call_read',
    });
    silent.add('t-read-1');
    await submit('alice', openaiChat(ids('t-read-1'), 'lookup', { query: 'slow' }));
    const timedOut = await terminal('t-read-1');
    expect(timedOut).toMatchObject({
      outcome: 'rejected',
      disposition: 'retry',
      stage: 'execution',
      code: 'timeout_retryable',
    });
    expectNoLeak(timedOut, NEVER_PUBLIC);

    // Proposed again (the same model call), the read runs again rather than replay the timeout.
    await submit('alice', openaiChat(ids('t-read-2'), 'lookup', { query: 'slow' }));
    const retried = await terminal('t-read-2');
    expect(retried).toMatchObject({ outcome: 'result', result: { withheld: false } });
    expect(retried).not.toHaveProperty('replay');
    expect(contentOf(retried)).toContain('no entry for slow');
    expect(commandsOf('lookup', 'run-read-timeout')).toHaveLength(2);
  });

  it('keeps a write that timed out unknown, and answers its retry from the key', async () => {
    const ids = (proposalId: string): ProposalIds => ({
      proposalId,
      runId: 'run-write-timeout',
      requestId: 'req-write',
      callId: 'call_write',
    });
    const close = (proposalId: string) =>
      openaiChat(ids(proposalId), 'close_ticket', { ticket_id: 'tkt_9', resolution: 'done' });
    silent.add('t-write-1');
    await submit('carol', close('t-write-1'));
    expect(await terminal('t-write-1')).toMatchObject({
      outcome: 'unknown_outcome',
      disposition: 'deny',
      stage: 'execution',
      code: 'timeout_outcome_unknown',
    });

    await submit('carol', close('t-write-2'));
    expect(await terminal('t-write-2')).toMatchObject({
      outcome: 'unknown_outcome',
      code: 'timeout_outcome_unknown',
      replay: true,
    });
    expect(commandsOf('close_ticket', 'run-write-timeout')).toHaveLength(1);
  });
});
