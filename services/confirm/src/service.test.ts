import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  authorizedEnvelope,
  authorizeProposal,
  confirmationIdFor,
  INTEGRITY_HEADER,
  integrityTag,
  referencesOf,
  toolOf,
  validateProposal,
  verifyIntegrity,
  type AuthorizedEnvelope,
  type Principal,
  type Proposal,
} from '@toolgate/shared';
import { createLogger, createMetrics, type Incoming, type StageDeps } from '@toolgate/platform';
import deployment from '../../../examples/billing/toolgate.config.js';
import { USERS } from '../../../examples/billing/data.js';
import { mcp, openaiChat } from '../../../examples/billing/fixtures/proposals.js';
import {
  sessionHeaders,
  startGateHarness,
  type GateHarness,
  type Tapped,
} from '../../../test/support/gate-harness.js';
import { createAuthorizedHandler } from './handle-authorized.js';
import * as confirm from './service.js';

// The authorize stage is built in parallel; until it is merged, the tests play it: they authorize
// proposals with the core functions and write tagged `authorized` envelopes, as it would.
const TAP = ['observations', 'audit', 'cleared', 'confirmations', 'approvals'];
const NO_DIGEST = '0'.repeat(64);

/** Public text that must never reach an agent or an approver of another tenant. */
const SECRETS = [
  /globex/i,
  /inv_900/,
  /carol/,
  /attacker/,
  /permit|forbid|principal|resource/,
  /approvers-approve/,
];

function expectNoLeak(observation: Tapped): void {
  const text = JSON.stringify(observation.value);
  for (const secret of SECRETS) expect(text).not.toMatch(secret);
}

/** The `authorized` envelope the authorize stage would write for `who`'s `proposal`, now. */
async function authorizedFor(
  h: GateHarness,
  who: Principal,
  proposal: Proposal,
): Promise<AuthorizedEnvelope> {
  const g = h.gate.runtime.gate;
  const limits = { maxBytes: g.ceilings.argumentBytes, maxDepth: g.ceilings.maxDepth };
  const facts = { registry: g.registry, limits, repairBudget: g.ceilings.repairAttempts };
  const v = validateProposal(proposal, who, facts);
  if (!v.ok) throw new Error(`${proposal.proposalId} did not validate`);
  const tool = toolOf(v.value, g.registry);
  if (!tool.ok) throw new Error(`${proposal.proposalId}: no tool`);
  const refs = referencesOf(v.value, tool.value);
  const loaded = await Promise.all(refs.map((r) => g.objects.load(who.tenant, r)));
  const counts = { callsInRun: 1, tenantCallsThisSecond: 1 };
  const a = authorizeProposal(v.value, tool.value, loaded, { ...g, counts });
  if (!a.ok) throw new Error(`${proposal.proposalId} was not authorized`);
  return authorizedEnvelope(a.value, new Date().toISOString());
}

/** The confirm stage alone on Kafka, with what it writes tapped. */
const confirmHarness = (options: Omit<Parameters<typeof startGateHarness>[0], 'modules' | 'tap'>) =>
  startGateHarness({ modules: [confirm], tap: TAP, ...options });

/** `path` on the approval API, served on the confirm stage's own port unless configured apart. */
const approvalApi = (h: GateHarness, path: string) =>
  `http://127.0.0.1:${h.gate.ports['confirm']}${path}`;

/** `who`'s session as the approval API takes it. */
const bearerOf = async (h: GateHarness, who: Principal) => ({
  authorization: `Bearer ${await h.session(who)}`,
});

/** Writes `env` to the authorized topic in the wire format, tagged as the gate tags it. */
async function sendAuthorized(h: GateHarness, env: AuthorizedEnvelope, tag?: string) {
  const topic = h.topic('authorized');
  const bytes = await h.gate.runtime.codec.encode(`${topic}-value`, env);
  const integrity = tag ?? integrityTag(h.gate.config.integrityKey, topic, bytes);
  await h.send('authorized', env.runId, bytes, { [INTEGRITY_HEADER]: integrity });
}

/** Proposes a call that needs a person and waits for its confirmation request. */
async function parked(h: GateHarness, proposal: Proposal, who: Principal = USERS.alice) {
  const env = await authorizedFor(h, who, proposal);
  await sendAuthorized(h, env);
  const [request] = await h.waitFor(
    'confirmations',
    `the confirmation request of ${proposal.proposalId}`,
    (r) => r.value['proposalId'] === proposal.proposalId,
  );
  return { env, request: request!, id: confirmationIdFor(proposal.proposalId) };
}

async function sendApproval(
  h: GateHarness,
  who: Principal,
  id: string,
  decision: 'approve' | 'reject',
  digest: string,
) {
  const headers = sessionHeaders(await h.session(who));
  await h.send('approvals', id, { confirmationId: id, decision, digest }, headers);
}

/** Waits for the audit event of `who`'s approval of `id` and returns it. */
async function approvalAudit(h: GateHarness, id: string, who: string, count = 1) {
  const events = await h.waitFor(
    'audit',
    `${count} audit event(s) of ${who}'s approval of ${id}`,
    (r) => r.value['confirmationId'] === id && r.value['decidedBy'] === who,
    count,
  );
  return events[count - 1]!;
}

/**
 * Sends a call that needs no person on `runId` and waits for its cleared envelope: the cleared
 * topic keeps one run in one partition, in order, so everything cleared on the run before has
 * been seen by then.
 */
async function flushCleared(h: GateHarness, runId: string, marker: string) {
  const proposal = openaiChat({ proposalId: marker, runId }, 'search', { query: 'flush' });
  await sendAuthorized(h, await authorizedFor(h, USERS.alice, proposal));
  await h.waitFor('cleared', `the marker ${marker}`, (r) => r.value['proposalId'] === marker);
}

const clearedOf = (h: GateHarness, proposalId: string) =>
  h.seen('cleared').filter((r) => r.value['proposalId'] === proposalId);

const observationsOf = (h: GateHarness, proposalId: string) =>
  h.seen('observations').filter((r) => r.value['proposalId'] === proposalId);

const refund = (proposalId: string, runId: string) =>
  mcp({ proposalId, runId }, 'refund_payment', { payment_id: 'pay_11', amount_cents: 500 });

describe('the confirm stage on Kafka', () => {
  let h: GateHarness;
  beforeAll(async () => {
    h = await confirmHarness({ label: 'confirm' });
  });
  afterAll(() => h?.close());

  it('clears a call that needs no person at once, tagged for execute', async () => {
    const env = await authorizedFor(
      h,
      USERS.bob,
      openaiChat({ proposalId: 'p-read', runId: 'run-read' }, 'search', { query: 'x' }),
    );
    await sendAuthorized(h, env);
    const [cleared] = await h.waitFor(
      'cleared',
      'p-read',
      (r) => r.value['proposalId'] === 'p-read',
    );
    expect(cleared!.value).toMatchObject({ tool: 'search', context: { subject: 'bob' } });
    expect(cleared!.value).not.toHaveProperty('confirmedBy');
    const tag = cleared!.headers[INTEGRITY_HEADER];
    expect(verifyIntegrity(h.gate.config.integrityKey, h.topic('cleared'), cleared!.raw, tag)).toBe(
      true,
    );
    expect(observationsOf(h, 'p-read')).toEqual([]);
  });

  it('parks a destructive call and clears it exactly once when an approver approves', async () => {
    const { request, id } = await parked(h, refund('p-approve', 'run-approve'));
    expect(request.key).toBe('acme');
    expect(request.value).toMatchObject({
      confirmationId: id,
      tenant: 'acme',
      requestedBy: 'alice',
      tool: 'refund_payment',
      card: { action: expect.any(String) as string },
    });
    const [pending] = await h.waitFor(
      'observations',
      'the pending observation',
      (r) => r.value['proposalId'] === 'p-approve',
    );
    expect(pending!.value).toMatchObject({
      outcome: 'pending_confirmation',
      stage: 'confirmation',
      code: 'pending',
      confirmation: { confirmationId: id },
    });

    await sendApproval(h, USERS.alice, id, 'approve', request.value['digest'] as string);
    const [cleared] = await h.waitFor(
      'cleared',
      'the approved call',
      (r) => r.value['proposalId'] === 'p-approve',
    );
    expect(cleared!.value).toMatchObject({
      tool: 'refund_payment',
      args: { payment_id: 'pay_11', amount_cents: 500 },
      context: { subject: 'alice', roles: ['approver'] },
      confirmedBy: 'alice',
    });
    expect(Date.parse(cleared!.value['confirmedAt'] as string)).not.toBeNaN();
    expect(await approvalAudit(h, id, 'alice')).toMatchObject({
      value: { kind: 'cleared', confirmedBy: 'alice', proposalId: 'p-approve', subject: 'alice' },
    });

    // A second approval of the same confirmation: single use.
    await sendApproval(h, USERS.alice, id, 'approve', request.value['digest'] as string);
    expect((await approvalAudit(h, id, 'alice', 2)).value).toMatchObject({
      kind: 'rejected',
      code: 'already_decided',
      outcome: null,
      proposalId: 'p-approve',
    });
    await flushCleared(h, 'run-approve', 'p-approve-flush');
    expect(clearedOf(h, 'p-approve')).toHaveLength(1);
    expect(observationsOf(h, 'p-approve').map((o) => o.value['outcome'])).toEqual([
      'pending_confirmation',
    ]);
  });

  it('ends the call with rejected_by_human when an approver rejects it', async () => {
    const { request, id } = await parked(h, refund('p-reject', 'run-reject'));
    await sendApproval(h, USERS.alice, id, 'reject', request.value['digest'] as string);
    const [ended] = await h.waitFor(
      'observations',
      'the rejection',
      (r) => r.value['proposalId'] === 'p-reject' && r.value['outcome'] === 'rejected',
    );
    expect(ended!.value).toMatchObject({
      stage: 'confirmation',
      code: 'rejected_by_human',
      disposition: 'deny',
    });
    expectNoLeak(ended!);
    expect((await approvalAudit(h, id, 'alice')).value).toMatchObject({
      kind: 'rejected',
      code: 'rejected_by_human',
      outcome: 'rejected',
    });
    await flushCleared(h, 'run-reject', 'p-reject-flush');
    expect(clearedOf(h, 'p-reject')).toEqual([]);
  });

  it('keeps waiting through approvals by a viewer and by another tenant, then clears for an approver', async () => {
    const { request, id } = await parked(h, refund('p-who', 'run-who'));
    const digest = request.value['digest'] as string;
    await sendApproval(h, USERS.bob, id, 'approve', digest);
    expect((await approvalAudit(h, id, 'bob')).value).toMatchObject({
      kind: 'rejected',
      stage: 'confirmation',
      code: 'approver_not_authorized',
      outcome: null,
      tenant: 'acme',
    });
    // Carol cannot even find it: another tenant's confirmation is reported as unknown.
    await sendApproval(h, USERS.carol, id, 'reject', digest);
    expect((await approvalAudit(h, id, 'carol')).value).toMatchObject({
      kind: 'rejected',
      code: 'unknown_confirmation',
      outcome: null,
      tenant: 'globex',
      proposalId: null,
    });
    await flushCleared(h, 'run-who', 'p-who-flush-1');
    expect(clearedOf(h, 'p-who')).toEqual([]);
    expect(observationsOf(h, 'p-who').map((o) => o.value['outcome'])).toEqual([
      'pending_confirmation',
    ]);

    await sendApproval(h, USERS.alice, id, 'approve', digest);
    const [cleared] = await h.waitFor('cleared', 'p-who', (r) => r.value['proposalId'] === 'p-who');
    expect(cleared!.value['confirmedBy']).toBe('alice');
  });

  it('keeps waiting when an approval names a stale digest', async () => {
    const { request, id } = await parked(h, refund('p-stale', 'run-stale'));
    await sendApproval(h, USERS.alice, id, 'approve', NO_DIGEST);
    expect((await approvalAudit(h, id, 'alice')).value).toMatchObject({
      kind: 'rejected',
      code: 'content_changed',
      outcome: null,
    });
    await flushCleared(h, 'run-stale', 'p-stale-flush');
    expect(clearedOf(h, 'p-stale')).toEqual([]);
    const waiting = await h.gate.runtime.store.readConfirmation('acme', id);
    expect(waiting?.state).toBe('waiting');
    expect(waiting?.pending.digest).toBe(request.value['digest']);
  });

  it('runs nothing when the draft changed between the card and the approval', async () => {
    const proposal = mcp({ proposalId: 'p-draft', runId: 'run-draft' }, 'send_email', {
      draft_id: 'draft_7',
    });
    const { request, id } = await parked(h, proposal);
    expect(request.value['card']).toMatchObject({ preview: { to: ['ops@acme.example'] } });
    const draft = { type: 'Draft', id: 'draft_7' };
    const before = await h.gate.runtime.objects.load('acme', draft);
    const edited = await h.gate.runtime.objects.compareAndSet(draft, 'acme', before!.version, {
      ...before!.attributes,
      to: ['attacker@evil.example'],
    });
    expect(edited).not.toBe('conflict');

    await sendApproval(h, USERS.alice, id, 'approve', request.value['digest'] as string);
    const [ended] = await h.waitFor(
      'observations',
      'the content change',
      (r) => r.value['proposalId'] === 'p-draft' && r.value['outcome'] === 'rejected',
    );
    expect(ended!.value).toMatchObject({ stage: 'confirmation', code: 'content_changed' });
    expectNoLeak(ended!);
    expect((await approvalAudit(h, id, 'alice')).value).toMatchObject({
      code: 'content_changed',
      outcome: 'rejected',
    });
    await flushCleared(h, 'run-draft', 'p-draft-flush');
    expect(clearedOf(h, 'p-draft')).toEqual([]);
    await h.gate.runtime.objects.put(before!);
  });

  it('refuses an envelope the gate did not tag: audited, never forwarded or answered', async () => {
    const env = await authorizedFor(h, USERS.alice, refund('p-forged', 'run-forged'));
    await sendAuthorized(h, env, 'f'.repeat(64));
    const [audit] = await h.waitFor(
      'audit',
      'the audit of the forged envelope',
      (r) => r.value['proposalId'] === 'p-forged',
    );
    expect(audit!.value).toMatchObject({
      outcome: null,
      stage: 'authentication',
      code: 'forged_envelope',
      tenant: null,
    });
    // A genuine call on the same run gets its pending observation; nothing came before it.
    await sendAuthorized(h, await authorizedFor(h, USERS.alice, refund('p-after', 'run-forged')));
    await h.waitFor('observations', 'the next call', (r) => r.value['proposalId'] === 'p-after');
    expect(observationsOf(h, 'p-forged')).toEqual([]);
    await flushCleared(h, 'run-forged', 'p-forged-flush');
    expect(clearedOf(h, 'p-forged')).toEqual([]);
    expect(h.seen('confirmations').filter((r) => r.value['proposalId'] === 'p-forged')).toEqual([]);
  });

  it('parks one confirmation and publishes one request when the same envelope comes twice', async () => {
    const env = await authorizedFor(h, USERS.alice, refund('p-twice', 'run-twice'));
    await sendAuthorized(h, env);
    await sendAuthorized(h, env);
    // One run, one partition: once the marker behind them is cleared, both were handled.
    await flushCleared(h, 'run-twice', 'p-twice-flush');
    const ofTwice = (r: Tapped) => r.value['proposalId'] === 'p-twice';
    await h.waitFor('confirmations', 'the request of p-twice', ofTwice);
    expect(h.seen('confirmations').filter(ofTwice)).toHaveLength(1);
    expect(observationsOf(h, 'p-twice')).toHaveLength(1);
    const listed = await h.gate.runtime.store.listPending('acme', 1000);
    expect(listed.filter((p) => p.proposalId === 'p-twice')).toHaveLength(1);
  });

  it('publishes the same request again when the same message is delivered again after a crash', async () => {
    const rt = h.gate.runtime;
    const deps: StageDeps = {
      config: h.gate.config,
      logger: createLogger({ level: 'silent', stage: 'confirm', instanceId: 'test' }),
      metrics: createMetrics('confirm', { processMetrics: false }),
      ...rt,
      deployment,
      now: () => new Date(),
    };
    const handle = createAuthorizedHandler(deps);
    const env = await authorizedFor(h, USERS.alice, refund('p-again', 'run-again'));
    const topic = h.topic('authorized');
    const raw = await h.gate.runtime.codec.encode(`${topic}-value`, env);
    const msg: Incoming = {
      topic,
      partition: 0,
      offset: '4242',
      key: env.runId,
      headers: { [INTEGRITY_HEADER]: integrityTag(h.gate.config.integrityKey, topic, raw) },
      value: env,
      raw,
      receivedAt: new Date(),
    };
    const first = await handle(msg);
    const again = await handle(msg);
    expect(first.map((o) => o.topic)).toEqual([
      h.topic('confirmations'),
      h.topic('observations'),
      h.topic('audit'),
    ]);
    expect(again[0]).toEqual(first[0]);
    expect(again.map((o) => o.topic)).toEqual(first.map((o) => o.topic));
    expect(await handle({ ...msg, offset: '4243' })).toEqual([]);
  });

  describe('the approval API', () => {
    const url = (path: string) => approvalApi(h, path);
    const bearer = (who: Principal) => bearerOf(h, who);

    it('lists only the caller tenant’s waiting confirmations, and none without a session', async () => {
      const { id } = await parked(h, refund('p-list', 'run-list'));
      expect((await fetch(url('/pending'))).status).toBe(401);
      const mine = await fetch(url('/pending'), { headers: await bearer(USERS.alice) });
      expect(mine.status).toBe(200);
      const body = (await mine.json()) as { confirmations: { confirmationId: string }[] };
      expect(body.confirmations.map((c) => c.confirmationId)).toContain(id);
      expect(body.confirmations[0]).toMatchObject({
        tool: expect.any(String) as string,
        card: expect.any(Object) as object,
        digest: expect.stringMatching(/^[0-9a-f]{64}$/) as string,
        requestedBy: expect.any(String) as string,
      });

      // A viewer of the same tenant may not approve it, and did not ask for it: no card.
      const viewer = await fetch(url('/pending'), { headers: await bearer(USERS.bob) });
      const seen = (await viewer.json()) as { tenant: string; confirmations: unknown[] };
      expect(seen.tenant).toBe('acme');
      expect(JSON.stringify(seen.confirmations)).not.toContain(id);

      const theirs = await fetch(url('/pending'), { headers: await bearer(USERS.carol) });
      const listed = (await theirs.json()) as { tenant: string; confirmations: unknown[] };
      expect(listed).toMatchObject({ tenant: 'globex' });
      expect(JSON.stringify(listed)).not.toMatch(/acme|alice/);
      const asked = await fetch(url('/pending?tenant=acme'), {
        headers: await bearer(USERS.carol),
      });
      expect(asked.status).toBe(403);
    });

    it('publishes an approval with the caller’s session and answers 202', async () => {
      const { request, id } = await parked(h, refund('p-http', 'run-http'));
      const post = (path: string, headers: Record<string, string>, body: unknown) =>
        fetch(url(path), {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...headers },
          body: JSON.stringify(body),
        });
      const digest = request.value['digest'] as string;
      expect((await post(`/confirmations/${id}/approve`, {}, { digest })).status).toBe(401);
      const alice = await bearer(USERS.alice);
      expect((await post(`/confirmations/${id}/approve`, alice, { digest: 'x' })).status).toBe(400);

      const answer = await post(`/confirmations/${id}/approve`, alice, { digest });
      expect(answer.status).toBe(202);
      expect(await answer.json()).toEqual({ confirmationId: id, decision: 'approve' });
      const [approval] = await h.waitFor(
        'approvals',
        'the HTTP approval',
        (r) => r.value['confirmationId'] === id,
      );
      expect(approval!.value).toEqual({ confirmationId: id, decision: 'approve', digest });
      expect(approval!.headers['toolgate-session']).toBe(
        alice.authorization.slice('Bearer '.length),
      );
      const [cleared] = await h.waitFor(
        'cleared',
        'p-http',
        (r) => r.value['proposalId'] === 'p-http',
      );
      expect(cleared!.value['confirmedBy']).toBe('alice');
    });
  });
});

describe('the confirm stage under a four-eyes policy', () => {
  const fourEyes = {
    name: 'four-eyes.cedar',
    text: [
      '@id("four-eyes")',
      'forbid (principal, action == Toolgate::Action::"approve", resource)',
      'when { context.requester == principal };',
    ].join('\n'),
  };
  /** A second approver of acme's, so that alice's call has someone else to approve it. */
  const ruth: Principal = { subject: 'ruth', tenant: 'acme', roles: ['approver'] };
  let h: GateHarness;
  beforeAll(async () => {
    h = await confirmHarness({
      label: 'confirm-four-eyes',
      deployment: { ...deployment, policies: [...deployment.policies, fourEyes] },
    });
  });
  afterAll(() => h?.close());

  it("refuses the requester's own approval and keeps waiting, then clears for another approver", async () => {
    const { request, id } = await parked(h, refund('p-eyes', 'run-eyes'), USERS.alice);
    expect(request.value['requestedBy']).toBe('alice');
    const digest = request.value['digest'] as string;
    await sendApproval(h, USERS.alice, id, 'approve', digest);
    const own = (await approvalAudit(h, id, 'alice')).value;
    expect(own).toMatchObject({
      kind: 'rejected',
      stage: 'confirmation',
      code: 'approver_not_authorized',
      outcome: null,
    });
    expect(own['internalDetail']).toMatch(/denied by four-eyes/);
    await flushCleared(h, 'run-eyes', 'p-eyes-flush');
    expect(clearedOf(h, 'p-eyes')).toEqual([]);

    await sendApproval(h, ruth, id, 'approve', digest);
    const [cleared] = await h.waitFor(
      'cleared',
      'p-eyes',
      (r) => r.value['proposalId'] === 'p-eyes',
    );
    expect(cleared!.value['confirmedBy']).toBe('ruth');
    expect(observationsOf(h, 'p-eyes').map((o) => o.value['outcome'])).toEqual([
      'pending_confirmation',
    ]);
  });

  it('lists a card to those who may approve it and to its requester, to no one else', async () => {
    const { id } = await parked(h, refund('p-eyes-list', 'run-eyes-list'), USERS.alice);
    const listed = async (who: Principal) => {
      const response = await fetch(approvalApi(h, '/pending'), { headers: await bearerOf(h, who) });
      expect(response.status).toBe(200);
      const body = (await response.json()) as { confirmations: { confirmationId: string }[] };
      return body.confirmations.some((c) => c.confirmationId === id);
    };
    // alice may not approve her own call here, but she asked for it; bob may neither.
    expect(await listed(USERS.alice)).toBe(true);
    expect(await listed(ruth)).toBe(true);
    expect(await listed(USERS.bob)).toBe(false);
  });
});

describe('the confirm stage when nobody answers', () => {
  let h: GateHarness;
  beforeAll(async () => {
    h = await confirmHarness({
      label: 'confirm-expiry',
      deployment: { ...deployment, confirmationTtlSeconds: 2 },
      env: { TOOLGATE_CONFIRMATION_HTTP_PORT: '0' },
    });
  });
  afterAll(() => h?.close());

  it('serves the approval API apart from health and metrics when TOOLGATE_CONFIRMATION_HTTP_PORT is set', async () => {
    const main = h.gate.ports['confirm'];
    const api = h.gate.ports['confirm.routes'];
    expect(api).toEqual(expect.any(Number));
    expect(api).not.toBe(main);
    expect((await fetch(`http://127.0.0.1:${api}/pending`)).status).toBe(401);
    expect((await fetch(`http://127.0.0.1:${main}/pending`)).status).toBe(404);
    expect((await fetch(`http://127.0.0.1:${main}/metrics`)).status).toBe(200);
    expect((await fetch(`http://127.0.0.1:${api}/metrics`)).status).toBe(404);
  });

  it('ends an unanswered confirmation with a terminal expired observation, once', async () => {
    const { request, id } = await parked(h, refund('p-expire', 'run-expire'));
    const [expired] = await h.waitFor(
      'observations',
      'the expiry',
      (r) => r.value['proposalId'] === 'p-expire' && r.value['outcome'] === 'expired',
    );
    expect(expired!.value).toMatchObject({
      stage: 'confirmation',
      code: 'expired',
      disposition: 'deny',
    });
    const [audit] = await h.waitFor(
      'audit',
      'the expiry audit',
      (r) => r.value['kind'] === 'expired' && r.value['proposalId'] === 'p-expire',
    );
    expect(audit!.value).toMatchObject({ confirmationId: id, outcome: 'expired' });

    // Too late: the approval is audited, and nothing runs.
    await sendApproval(h, USERS.alice, id, 'approve', request.value['digest'] as string);
    expect((await approvalAudit(h, id, 'alice')).value).toMatchObject({
      code: 'already_decided',
      outcome: null,
    });
    await flushCleared(h, 'run-expire', 'p-expire-flush');
    expect(clearedOf(h, 'p-expire')).toEqual([]);
    expect(observationsOf(h, 'p-expire').map((o) => o.value['outcome'])).toEqual([
      'pending_confirmation',
      'expired',
    ]);
  });
});
