import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  confirmationIdFor,
  createMessageChecker,
  createSessionVerifier,
  INTEGRITY_HEADER,
  integrityTag,
  verifyIntegrity,
  type Approval,
  type AuthorizedEnvelope,
  type Gate,
  type Principal,
} from '@toolgate/shared';
import {
  createLogger,
  createMetrics,
  type Incoming,
  type Outgoing,
  type StageDeps,
} from '@toolgate/platform';
import deployment, {
  NEVER_PUBLIC,
  TEST_SESSION_ISSUER,
  USERS,
} from '../../../test/support/deployment/index.js';
import { refund as refundTool } from '../../../test/support/deployment/tools.js';
import {
  sessionHeaders,
  startGateHarness,
  type GateHarness,
  type Tapped,
} from '../../../test/support/gate-harness.js';
import { expectNoLeak as expectNothingIn } from '../../../test/support/no-leak.js';
import { mcp, openaiChat } from '../../../test/support/proposals.js';
import { authorizedFor, sendAuthorized } from '../../../test/support/authorized-envelopes.js';
import { approvalApi, bearerOf, parked, rejectionOf } from './confirm-fixtures.test-support.js';
import { createApprovalHandler } from './handle-approval.js';
import { createAuthorizedHandler } from './handle-authorized.js';
import * as confirm from './service.js';

// The tests play the authorize stage (test/support/authorized-envelopes.ts).
const TAP = ['observations', 'audit', 'cleared', 'confirmations', 'approvals'];
const NO_DIGEST = '0'.repeat(64);

/** Nothing of other tenants or policy, nor what an attacker wrote into a changed object. */
function expectNoLeak(observation: Tapped): void {
  expectNothingIn(observation.value, [...NEVER_PUBLIC, 'attacker']);
}

/** The confirm stage alone on Kafka, with what it writes tapped. */
const confirmHarness = (options: Omit<Parameters<typeof startGateHarness>[0], 'modules' | 'tap'>) =>
  startGateHarness({ modules: [confirm], tap: TAP, ...options });

/** The waiting confirmations of `tenant` in the store, expired ones included. */
const waitingOf = async (h: GateHarness, tenant: string) =>
  (
    await h.gate.runtime.store.confirmations.listPending(tenant, { expiredUpToMs: 0, size: 1000 })
  ).entries.flatMap((e) => (e.pending === undefined ? [] : [e.pending]));

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
  const proposal = openaiChat({ proposalId: marker, runId }, 'lookup', { query: 'flush' });
  await sendAuthorized(h, await authorizedFor(h, USERS.alice, proposal));
  await h.waitFor('cleared', `the marker ${marker}`, (r) => r.value['proposalId'] === marker);
}

const clearedOf = (h: GateHarness, proposalId: string) =>
  h.seen('cleared').filter((r) => r.value['proposalId'] === proposalId);

const observationsOf = (h: GateHarness, proposalId: string) =>
  h.seen('observations').filter((r) => r.value['proposalId'] === proposalId);

/** The confirm stage's deps on `h`'s connections, for calling a handler directly; `change` wins. */
function stageDeps(h: GateHarness, change: Partial<StageDeps> = {}): StageDeps {
  return {
    config: h.gate.config,
    logger: createLogger({ level: 'silent', stage: 'confirm', instanceId: 'test' }),
    metrics: createMetrics('confirm', { processMetrics: false }),
    ...h.gate.runtime,
    ...h.gate.runtime.store,
    deployment,
    now: () => new Date(),
    ...change,
  };
}

/** `env` as the authorized consumer reads it at `offset` of partition 0, tagged as the gate tags it. */
async function authorizedAt(
  h: GateHarness,
  offset: string,
  env: AuthorizedEnvelope,
): Promise<Incoming> {
  const topic = h.topic('authorized');
  const stamped = { ...env, issuedAt: env.issuedAt ?? new Date().toISOString() };
  const raw = await h.gate.runtime.codec.encode(`${topic}-value`, stamped);
  const headers = { [INTEGRITY_HEADER]: integrityTag(h.gate.config.integrityKey, topic, raw) };
  return {
    topic,
    partition: 0,
    offset,
    key: env.runId,
    headers,
    value: stamped,
    raw,
    receivedAt: new Date(),
  };
}

/** `approval` as the approvals consumer reads it at `offset` of partition 0, signed in by `token`. */
function approvalAt(h: GateHarness, offset: string, approval: Approval, token: string): Incoming {
  return {
    topic: h.topic('approvals'),
    partition: 0,
    offset,
    key: approval.confirmationId,
    headers: sessionHeaders(token),
    value: approval,
    raw: Buffer.from(JSON.stringify(approval)),
    receivedAt: new Date(),
  };
}

const valueOf = (o: Outgoing | undefined) =>
  o !== undefined && 'value' in o ? o.value : undefined;

const refund = (proposalId: string, runId: string) =>
  mcp({ proposalId, runId }, 'refund', { payment_id: 'pay_1', amount: 500 });

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
      openaiChat({ proposalId: 'p-read', runId: 'run-read' }, 'lookup', { query: 'x' }),
    );
    await sendAuthorized(h, env);
    const [cleared] = await h.waitFor(
      'cleared',
      'p-read',
      (r) => r.value['proposalId'] === 'p-read',
    );
    expect(cleared!.value).toMatchObject({ tool: 'lookup', context: { subject: 'bob' } });
    expect(cleared!.value).not.toHaveProperty('confirmedBy');
    const tag = cleared!.headers[INTEGRITY_HEADER];
    expect(verifyIntegrity(h.gate.config.integrityKey, h.topic('cleared'), cleared!.raw, tag)).toBe(
      true,
    );
    expect(observationsOf(h, 'p-read')).toEqual([]);
  });

  it('parks a destructive call and clears it exactly once when an approver approves', async () => {
    const { env, request, id } = await parked(h, refund('p-approve', 'run-approve'));
    expect(request.key).toBe('acme');
    expect(request.value).toMatchObject({
      confirmationId: id,
      tenant: 'acme',
      requestedBy: 'alice',
      tool: 'refund',
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
      tool: 'refund',
      args: { payment_id: 'pay_1', amount: 500 },
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
    // The call itself delivered again after it was decided: nothing parks, nothing is published.
    await sendAuthorized(h, env);
    await flushCleared(h, 'run-approve', 'p-approve-flush');
    expect(
      h.seen('confirmations').filter((r) => r.value['proposalId'] === 'p-approve'),
    ).toHaveLength(1);
    expect(clearedOf(h, 'p-approve')).toHaveLength(1);
    expect(observationsOf(h, 'p-approve').map((o) => o.value['outcome'])).toEqual([
      'pending_confirmation',
    ]);
  });

  it('ends the call with rejected_by_human when an approver rejects it', async () => {
    const { request, id } = await parked(h, refund('p-reject', 'run-reject'));
    await sendApproval(h, USERS.alice, id, 'reject', request.value['digest'] as string);
    const ended = await rejectionOf(h, 'p-reject');
    expect(ended.value).toMatchObject({
      stage: 'confirmation',
      code: 'rejected_by_human',
      disposition: 'deny',
    });
    expectNoLeak(ended);
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
    const waiting = await h.gate.runtime.store.confirmations.readConfirmation('acme', id);
    expect(waiting?.state).toBe('waiting');
    expect(waiting?.pending.digest).toBe(request.value['digest']);
  });

  it('runs nothing when the note changed between the card and the approval', async () => {
    const proposal = mcp({ proposalId: 'p-draft', runId: 'run-draft' }, 'publish_note', {
      note_id: 'note_1',
    });
    const { request, id } = await parked(h, proposal);
    expect(request.value['card']).toMatchObject({
      preview: { text: 'The release is on Friday.' },
    });
    const note = { type: 'Note', id: 'note_1' };
    const before = await h.gate.runtime.objects.load('acme', note);
    const edited = await h.gate.runtime.objects.compareAndSet(note, 'acme', before!.version, {
      ...before!.attributes,
      text: 'Rewritten by an attacker.',
    });
    expect(edited).not.toBe('conflict');

    await sendApproval(h, USERS.alice, id, 'approve', request.value['digest'] as string);
    const ended = await rejectionOf(h, 'p-draft');
    expect(ended.value).toMatchObject({ stage: 'confirmation', code: 'content_changed' });
    expectNoLeak(ended);
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
    const listed = await waitingOf(h, 'acme');
    expect(listed.filter((p) => p.proposalId === 'p-twice')).toHaveLength(1);
  });

  it('refuses another call under a proposalId whose confirmation is parked, and keeps the first', async () => {
    const first = await parked(h, refund('p-reused', 'run-reused'));
    const other = mcp({ proposalId: 'p-reused', runId: 'run-reused' }, 'refund', {
      payment_id: 'pay_1',
      amount: 700,
    });
    await sendAuthorized(h, await authorizedFor(h, USERS.alice, other));
    const [, refusedCall] = await h.waitFor(
      'observations',
      'the refusal of the second call under p-reused',
      (r) => r.value['proposalId'] === 'p-reused',
      2,
    );
    expect(refusedCall!.value).toMatchObject({
      outcome: 'rejected',
      stage: 'confirmation',
      code: 'proposal_reused',
    });
    // The agent learns that the id was taken, not what the first call was or where it waits.
    expectNoLeak(refusedCall!);
    for (const word of [first.id, '500', 'pay_1']) {
      expect(JSON.stringify(refusedCall!.value)).not.toContain(word);
    }
    const [audit] = await h.waitFor(
      'audit',
      'the audit event of the refusal',
      (r) => r.value['proposalId'] === 'p-reused' && r.value['code'] === 'proposal_reused',
    );
    expect(audit!.value['internalDetail']).toContain(`confirmation ${first.id}`);
    // Nothing else was asked of a person, and the first call still waits for one.
    await flushCleared(h, 'run-reused', 'p-reused-flush');
    const requests = h.seen('confirmations').filter((r) => r.value['proposalId'] === 'p-reused');
    expect(requests).toHaveLength(1);
    expect(clearedOf(h, 'p-reused')).toEqual([]);
    const listed = await waitingOf(h, 'acme');
    const waiting = listed.filter((p) => p.proposalId === 'p-reused');
    expect(waiting.map((p) => p.args)).toEqual([{ payment_id: 'pay_1', amount: 500 }]);
  });

  it('refuses another call under a parked proposalId even if the confirmation expires right after', async () => {
    // What stands is read in the same step as the park: a later read would find nothing once the
    // confirmation expired (its TTL and grace over), and the second call would go unanswered.
    const confirmations = {
      ...h.gate.runtime.store.confirmations,
      readConfirmation: () => Promise.resolve(undefined),
    };
    const handle = createAuthorizedHandler(stageDeps(h, { confirmations }), createMessageChecker());
    const first = await authorizedFor(h, USERS.alice, refund('p-expiring', 'run-expiring'));
    const other = mcp({ proposalId: 'p-expiring', runId: 'run-expiring' }, 'refund', {
      payment_id: 'pay_1',
      amount: 700,
    });
    expect((await handle(await authorizedAt(h, '5001', first))).map((o) => o.topic)).toEqual([
      h.topic('confirmations'),
      h.topic('observations.acme'),
      h.topic('audit'),
    ]);
    const answer = await handle(
      await authorizedAt(h, '5002', await authorizedFor(h, USERS.alice, other)),
    );
    expect(answer.map((o) => o.topic)).toEqual([h.topic('observations.acme'), h.topic('audit')]);
    expect(valueOf(answer[0])).toMatchObject({
      proposalId: 'p-expiring',
      outcome: 'rejected',
      stage: 'confirmation',
      code: 'proposal_reused',
    });
  });

  it('publishes the same request again when the same message is delivered again after a crash', async () => {
    const handle = createAuthorizedHandler(stageDeps(h), createMessageChecker());
    const env = await authorizedFor(h, USERS.alice, refund('p-again', 'run-again'));
    const msg = await authorizedAt(h, '4242', env);
    const first = await handle(msg);
    const again = await handle(msg);
    expect(first.map((o) => o.topic)).toEqual([
      h.topic('confirmations'),
      h.topic('observations.acme'),
      h.topic('audit'),
    ]);
    expect(again[0]).toEqual(first[0]);
    expect(again.map((o) => o.topic)).toEqual(first.map((o) => o.topic));
    expect(await handle({ ...msg, offset: '4243' })).toEqual([]);
  });

  describe('an approval delivered again after it took its confirmation', () => {
    /** Parks `proposalId`'s refund and lets alice's approval take it, as a first delivery would. */
    async function takenBy(proposalId: string, offset: string, ttlSeconds = 3600) {
      const { request, id } = await parked(h, refund(proposalId, `run-${proposalId}`));
      const approval: Approval = {
        confirmationId: id,
        decision: 'approve',
        digest: request.value['digest'] as string,
      };
      const msg = approvalAt(h, offset, approval, await h.session(USERS.alice, ttlSeconds));
      // The first delivery decides and takes; its transaction then fails, so nothing it wrote is
      // seen and the stage loop delivers the same message again.
      const first = await createApprovalHandler(stageDeps(h))(msg);
      expect(first.map((o) => o.topic)).toEqual([h.topic('cleared'), h.topic('audit')]);
      expect((await h.gate.runtime.store.confirmations.readConfirmation('acme', id))?.state).toBe(
        'taken',
      );
      return { msg, approval, id };
    }

    it("clears the call after the approver's session expired meanwhile; no other message can", async () => {
      const { msg, approval } = await takenBy('p-resume-late', '7001', 60);
      const later = stageDeps(h, { now: () => new Date(Date.now() + 10 * 60_000) });
      const again = await createApprovalHandler(later)(msg);
      expect(again.map((o) => o.topic)).toEqual([h.topic('cleared'), h.topic('audit')]);
      expect(valueOf(again[0])).toMatchObject({
        proposalId: 'p-resume-late',
        tool: 'refund',
        context: { subject: 'alice' },
        confirmedBy: 'alice',
      });
      expect(valueOf(again[1])).toMatchObject({ kind: 'cleared', decidedBy: 'alice' });

      // The same approval and token in another message rides on nothing: it is only audited.
      const copy = await createApprovalHandler(later)({ ...msg, offset: '7002' });
      expect(copy.map((o) => o.topic)).toEqual([h.topic('audit')]);
      expect(valueOf(copy[0])).toMatchObject({ code: 'expired_session', outcome: null });
      const fresh = approvalAt(h, '7003', approval, await h.session(USERS.alice));
      const second = await createApprovalHandler(stageDeps(h))(fresh);
      expect(second.map((o) => o.topic)).toEqual([h.topic('audit')]);
      expect(valueOf(second[0])).toMatchObject({ code: 'already_decided', outcome: null });
    });

    it('does not let another record at the same coordinates finish a call a person rejected', async () => {
      // alice rejects; the first delivery takes the confirmation (its transaction then fails).
      const { request, id } = await parked(h, refund('p-offset-reuse', 'run-p-offset-reuse'));
      const digest = request.value['digest'] as string;
      const rejected: Approval = { confirmationId: id, decision: 'reject', digest };
      const first = approvalAt(h, '7031', rejected, await h.session(USERS.alice));
      const ended = await createApprovalHandler(stageDeps(h))(first);
      expect(valueOf(ended[0])).toMatchObject({ code: 'rejected_by_human' });
      // The approvals topic is recreated (or the cluster fails over to a mirror), so offsets
      // restart, and a record that nobody signed lands at the same partition and offset.
      const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
      const claims = { sub: 'mallory', tenant: 'acme', roles: ['approver'], aud: 'toolgate' };
      const unsigned = `${b64({ alg: 'none' })}.${b64(claims)}.`;
      const forged: Approval = { confirmationId: id, decision: 'approve', digest };
      const out = await createApprovalHandler(stageDeps(h))(
        approvalAt(h, '7031', forged, unsigned),
      );
      expect(out.map((o) => o.topic)).toEqual([h.topic('audit')]);
      expect(valueOf(out[0])).toMatchObject({ code: 'invalid_session', outcome: null });
      expect((await h.gate.runtime.store.confirmations.readConfirmation('acme', id))?.state).toBe(
        'taken',
      );
      // The record that took it, delivered again, still ends the call.
      const again = await createApprovalHandler(stageDeps(h))(first);
      expect(valueOf(again[0])).toMatchObject({ code: 'rejected_by_human' });
    });

    it('clears the call after the session keys rotated meanwhile', async () => {
      const { msg } = await takenBy('p-resume-rotated', '7011');
      const rotated = createSessionVerifier({
        secret: 'a-rotated-secret-that-signed-nothing-yet',
        issuer: TEST_SESSION_ISSUER,
      });
      const deps = stageDeps(h, { gate: { ...h.gate.runtime.gate, verifier: rotated } });
      const again = await createApprovalHandler(deps)(msg);
      expect(again.map((o) => o.topic)).toEqual([h.topic('cleared'), h.topic('audit')]);
      expect(valueOf(again[0])).toMatchObject({
        proposalId: 'p-resume-rotated',
        confirmedBy: 'alice',
      });
    });

    it('ends the call with internal_error when its live facts fail for good', async () => {
      const { msg } = await takenBy('p-resume-broken', '7021');
      const broken = { load: () => Promise.reject(new Error('the object store answered garbage')) };
      const gate: Gate = { ...h.gate.runtime.gate, objects: broken };
      const again = await createApprovalHandler(stageDeps(h, { gate }))(msg);
      expect(again.map((o) => o.topic)).toEqual([h.topic('observations.acme'), h.topic('audit')]);
      expect(valueOf(again[0])).toMatchObject({
        proposalId: 'p-resume-broken',
        outcome: 'rejected',
        code: 'internal_error',
      });
      expect(valueOf(again[1])).toMatchObject({ kind: 'rejected', code: 'internal_error' });
    });
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

describe('the confirm stage with a card the confirmations topic cannot carry', () => {
  /** A deployment's card builder that leaves the target line empty (the schema wants text). */
  const blankTarget = {
    ...refundTool,
    card: (...given: Parameters<NonNullable<typeof refundTool.card>>) => ({
      ...refundTool.card!(...given),
      target: '',
    }),
  };
  let h: GateHarness;
  beforeAll(async () => {
    h = await confirmHarness({
      label: 'confirm-card',
      deployment: {
        ...deployment,
        tools: deployment.tools.map((t) => (t.name === 'refund' ? blankTarget : t)),
      },
    });
  });
  afterAll(() => h?.close());

  it('refuses the call with invalid_card and parks nothing anyone could approve', async () => {
    await sendAuthorized(h, await authorizedFor(h, USERS.alice, refund('p-blank', 'run-blank')));
    const ended = await rejectionOf(h, 'p-blank');
    const id = confirmationIdFor('p-blank');
    expect(await h.gate.runtime.store.confirmations.readConfirmation('acme', id)).toBeUndefined();
    const listed = await fetch(approvalApi(h, '/pending'), {
      headers: await bearerOf(h, USERS.alice),
    });
    expect(JSON.stringify(await listed.json())).not.toContain(id);
    expect(ended.value).toMatchObject({
      stage: 'confirmation',
      code: 'invalid_card',
      disposition: 'deny',
    });
    expectNoLeak(ended);
    const [audit] = await h.waitFor(
      'audit',
      'the audit of p-blank',
      (r) => r.value['proposalId'] === 'p-blank',
    );
    expect(audit!.value).toMatchObject({ kind: 'rejected', code: 'invalid_card' });
    expect(audit!.value['internalDetail']).toMatch(/\/card\/target: minLength/);

    // Nothing waits for it: an approval finds nothing, and nothing was asked of anyone.
    await sendApproval(h, USERS.alice, id, 'approve', NO_DIGEST);
    expect((await approvalAudit(h, id, 'alice')).value).toMatchObject({
      code: 'unknown_confirmation',
    });
    expect(h.seen('confirmations').filter((r) => r.value['proposalId'] === 'p-blank')).toEqual([]);
    expect(observationsOf(h, 'p-blank').map((o) => o.value['outcome'])).toEqual(['rejected']);
  });
});

describe('the confirm stage when nobody answers', () => {
  let h: GateHarness;
  beforeAll(async () => {
    h = await confirmHarness({
      label: 'confirm-expiry',
      deployment: { ...deployment, confirmationTtlSeconds: 2 },
    });
  });
  afterAll(() => h?.close());

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
