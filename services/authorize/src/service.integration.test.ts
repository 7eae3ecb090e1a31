/**
 * The authorize stage alone on the real stack: the test writes validated envelopes onto the
 * internal topic as the validate stage would (built with the core, encoded with the registry
 * codec, tagged with the gate's integrity key), or forged ones, and reads what the stage decided
 * from the authorized, observations and audit topics.
 *
 * "Never forwarded" is shown by order, not by waiting: after the envelopes under test, a sentinel
 * with the same run id (so the same partition, in order) from another tenant (so another run
 * counter) is forwarded; once the tap has it, anything forwarded before it would have been seen.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  INTEGRITY_HEADER,
  integrityTag,
  REJECTION_CODES,
  validatedEnvelope,
  validateProposal,
  verifyIntegrity,
  type Principal,
  type ValidatedEnvelope,
} from '@toolgate/shared';
import { eventually } from '../../../test/support/deadline.js';
import deployment, { NEVER_PUBLIC, USERS } from '../../../test/support/deployment/index.js';
import {
  sessionHeaders,
  startGateHarness,
  type GateHarness,
} from '../../../test/support/gate-harness.js';
import { expectNoLeak } from '../../../test/support/no-leak.js';
import { openaiChat } from '../../../test/support/proposals.js';
import { startPrivateRedis, type PrivateRedis } from '../../../test/support/private-redis.js';
import * as validate from '../../validate/src/service.js';
import * as authorize from './service.js';

const RECEIVED_AT = '2025-01-02T03:04:05.678Z';

/** A genuine validated envelope of `who`'s call, as the validate stage writes it. */
function validated(
  h: GateHarness,
  who: Principal,
  ids: { proposalId: string; runId: string; callId?: string; requestId?: string },
  tool: string,
  args: Record<string, unknown>,
): ValidatedEnvelope {
  const { registry, ceilings } = h.gate.runtime.gate;
  const v = validateProposal(openaiChat(ids, tool, args), who, {
    registry,
    limits: { maxBytes: ceilings.argumentBytes, maxDepth: ceilings.maxDepth },
    repairBudget: ceilings.repairAttempts,
  });
  if (!v.ok) throw new Error(`fixture ${ids.proposalId} did not validate: ${v.rejected.code}`);
  return validatedEnvelope(v.value, RECEIVED_AT);
}

/** `value` in the wire format of the validated topic, as the validate stage encodes it. */
function encoded(h: GateHarness, value: ValidatedEnvelope): Promise<Buffer> {
  // Stamped as the validate stage's outputs stamp every envelope they write.
  const issuedAt = value.issuedAt ?? new Date().toISOString();
  return h.gate.runtime.codec.encode(`${h.topic('validated')}-value`, { ...value, issuedAt });
}

/** The tag the gate itself would put on `bytes` on the validated topic. */
function genuineTag(h: GateHarness, bytes: Buffer): string {
  return integrityTag(h.gate.config.integrityKey, h.topic('validated'), bytes);
}

/** Writes `value` to validated in the wire format, tagged by `tagOf` (untagged when undefined). */
async function write(
  h: GateHarness,
  value: ValidatedEnvelope,
  tagOf: ((bytes: Buffer) => string) | undefined,
) {
  const bytes = await encoded(h, value);
  const headers = tagOf === undefined ? {} : { [INTEGRITY_HEADER]: tagOf(bytes) };
  await h.send('validated', value.runId, bytes, headers);
}

/** Writes a genuine envelope, as the validate stage would. */
function feed(h: GateHarness, value: ValidatedEnvelope): Promise<void> {
  return write(h, value, (bytes) => genuineTag(h, bytes));
}

async function observationOf(h: GateHarness, proposalId: string) {
  const [o] = await h.waitFor(
    'observations',
    `the observation of ${proposalId}`,
    (r) => r.value['proposalId'] === proposalId,
  );
  return o!.value;
}

async function auditOf(h: GateHarness, proposalId: string) {
  const [a] = await h.waitFor(
    'audit',
    `the audit event of ${proposalId}`,
    (r) => r.value['proposalId'] === proposalId,
  );
  return a!.value;
}

/**
 * Sends the sentinel of `runId` (carol's lookup: another tenant, so another run counter), waits
 * until it is forwarded, and returns the proposal ids forwarded on that run before it.
 */
async function forwardedBefore(h: GateHarness, runId: string): Promise<unknown[]> {
  const proposalId = `sentinel-${runId}`;
  await feed(h, validated(h, USERS.carol, { proposalId, runId }, 'lookup', { query: 'x' }));
  await h.waitFor(
    'authorized',
    `the sentinel of ${runId}`,
    (r) => r.value['proposalId'] === proposalId,
  );
  const forwarded = h.seen('authorized').filter((r) => r.value['runId'] === runId);
  return forwarded.map((r) => r.value['proposalId']).filter((id) => id !== proposalId);
}

/** Proposal ids of `runId` that got an observation before a refused sentinel sent now got its own. */
async function observedBefore(h: GateHarness, runId: string): Promise<unknown[]> {
  const proposalId = `refused-sentinel-${runId}`;
  const write = { ticket_id: 'tkt_1', resolution: 'done' };
  await feed(h, validated(h, USERS.bob, { proposalId, runId }, 'close_ticket', write));
  await observationOf(h, proposalId);
  const observed = h.seen('observations').filter((r) => r.value['runId'] === runId);
  return observed.map((r) => r.value['proposalId']).filter((id) => id !== proposalId);
}

function commandsSeen(h: GateHarness): number {
  return deployment.tools.reduce((n, t) => n + h.seen(`commands.${t.name}`).length, 0);
}

/** The observation says nothing about other tenants, objects, roles, policy or its version. */
function expectNothingLeaks(observation: Record<string, unknown>, policyVersion: string): void {
  expectNoLeak(observation, [...NEVER_PUBLIC, policyVersion]);
}

describe('the authorize stage on Kafka', () => {
  let h: GateHarness;
  let policyVersion: string;
  beforeAll(async () => {
    h = await startGateHarness({ label: 'authorize', modules: [authorize] });
    policyVersion = h.gate.runtime.gate.policies.version;
  });
  afterAll(() => h?.close());

  it('forwards a write with its live objects and the policy version, tagged for authorized', async () => {
    const ids = { proposalId: 'p-write', runId: 'run-write' };
    await feed(
      h,
      validated(h, USERS.alice, ids, 'close_ticket', {
        ticket_id: 'tkt_1',
        resolution: 'done',
      }),
    );
    await feed(
      h,
      validated(h, USERS.alice, { proposalId: 'p-read', runId: 'run-write' }, 'lookup', {
        query: 'q3',
      }),
    );

    const [write, read] = await h.waitFor(
      'authorized',
      'both envelopes',
      (r) => r.value['runId'] === 'run-write',
      2,
    );
    expect(write!.value).toMatchObject({
      proposalId: 'p-write',
      tool: 'close_ticket',
      toolVersion: '1',
      args: { ticket_id: 'tkt_1', resolution: 'done' },
      context: { subject: 'alice', tenant: 'acme', proposalId: 'p-write' },
      objects: [
        {
          type: 'Ticket',
          id: 'tkt_1',
          tenant: 'acme',
          version: 1,
          attributes: { title: 'ticket 1', status: 'open', priority: 'normal' },
        },
      ],
      policyVersion,
      receivedAt: RECEIVED_AT,
    });
    expect(write!.key).toBe('run-write');
    const tag = write!.headers[INTEGRITY_HEADER];
    const key = h.gate.config.integrityKey;
    expect(verifyIntegrity(key, h.topic('authorized'), write!.raw, tag)).toBe(true);
    expect(verifyIntegrity(key, h.topic('validated'), write!.raw, tag)).toBe(false);
    expect(read!.value).toMatchObject({ proposalId: 'p-read', objects: [], policyVersion });
    expect(h.seen('observations').filter((r) => r.value['runId'] === 'run-write')).toEqual([]);
  });

  it("reports another tenant's ticket exactly like a missing one", async () => {
    const runId = 'run-tenancy';
    const approve = (proposalId: string, ticket: string) =>
      validated(h, USERS.alice, { proposalId, runId }, 'close_ticket', {
        ticket_id: ticket,
        resolution: 'done',
      });
    await feed(h, approve('p-foreign', 'tkt_9'));
    await feed(h, approve('p-missing', 'tkt_999'));

    const foreign = await observationOf(h, 'p-foreign');
    const missing = await observationOf(h, 'p-missing');
    const said = (o: Record<string, unknown>) => {
      const { proposalId: _p, requestId: _r, callId: _c, at: _a, ...rest } = o;
      return rest;
    };
    expect(said(foreign)).toEqual(said(missing));
    expect(foreign).toMatchObject({
      outcome: 'rejected',
      stage: 'resolution',
      code: 'not_found',
      disposition: 'deny',
      message: REJECTION_CODES.resolution.not_found.publicMessage,
    });
    expectNothingLeaks(foreign, policyVersion);
    expect(await auditOf(h, 'p-foreign')).toMatchObject({
      kind: 'rejected',
      stage: 'resolution',
      code: 'not_found',
      tenant: 'acme',
      subject: 'alice',
      objectIds: ['tkt_9'],
      outcome: 'rejected',
    });
    expect(await forwardedBefore(h, runId)).toEqual([]);
    expect(commandsSeen(h)).toBe(0);
  });

  it("refuses a viewer's write as not authorized, naming the policy version only in the audit", async () => {
    const runId = 'run-bob';
    const args = { ticket_id: 'tkt_1', resolution: 'done' };
    await feed(h, validated(h, USERS.bob, { proposalId: 'p-bob', runId }, 'close_ticket', args));

    const observation = await observationOf(h, 'p-bob');
    expect(observation).toMatchObject({
      outcome: 'rejected',
      stage: 'authorization',
      code: 'not_authorized',
      disposition: 'deny',
      message: 'This action is not allowed.',
    });
    expect(observation).not.toHaveProperty('repair');
    expectNothingLeaks(observation, policyVersion);
    const audit = await auditOf(h, 'p-bob');
    expect(audit).toMatchObject({
      code: 'not_authorized',
      subject: 'bob',
      policyVersion,
      objectIds: ['tkt_1'],
    });
    expect(audit['internalDetail']).toContain(policyVersion);
    expect(await forwardedBefore(h, runId)).toEqual([]);
    expect(commandsSeen(h)).toBe(0);
  });

  it('refuses closing a closed ticket as not open', async () => {
    const runId = 'run-closed';
    const args = { ticket_id: 'tkt_3', resolution: 'done' };
    await feed(
      h,
      validated(h, USERS.alice, { proposalId: 'p-closed', runId }, 'close_ticket', args),
    );

    const observation = await observationOf(h, 'p-closed');
    expect(observation).toMatchObject({
      outcome: 'rejected',
      stage: 'precondition',
      code: 'not_open',
      disposition: 'deny',
      message: 'The ticket is not open, so it cannot be closed.',
    });
    expectNothingLeaks(observation, policyVersion);
    expect(await auditOf(h, 'p-closed')).toMatchObject({ code: 'not_open', policyVersion });
    expect(await forwardedBefore(h, runId)).toEqual([]);
    expect(commandsSeen(h)).toBe(0);
  });

  it('refuses a forged envelope, whatever is wrong with its tag: audited, never forwarded or answered', async () => {
    const runId = 'run-forged';
    const envelope = (proposalId: string) =>
      validated(h, USERS.alice, { proposalId, runId }, 'close_ticket', {
        ticket_id: 'tkt_1',
        resolution: 'done',
      });
    const original = envelope('p-tampered');
    const tampered = { ...original, context: { ...original.context, tenant: 'globex' } };
    const originalTag = genuineTag(h, await encoded(h, original));
    await write(h, tampered, () => originalTag);
    await write(h, envelope('p-untagged'), undefined);
    const key = h.gate.config.integrityKey;
    await write(h, envelope('p-other-topic'), (bytes) =>
      integrityTag(key, h.topic('authorized'), bytes),
    );
    const otherKey = randomBytes(32).toString('hex');
    await write(h, envelope('p-other-key'), (bytes) =>
      integrityTag(otherKey, h.topic('validated'), bytes),
    );
    // Plain JSON on an internal topic cannot even be decoded: audited, but it names no proposal,
    // even under a tag over exactly its bytes.
    const plain = Buffer.from(JSON.stringify(envelope('p-plain')));
    await h.send('validated', runId, plain, { [INTEGRITY_HEADER]: genuineTag(h, plain) });

    for (const proposalId of ['p-tampered', 'p-untagged', 'p-other-topic', 'p-other-key']) {
      const audit = await auditOf(h, proposalId);
      // Audited under the ids it claims, but believed in nothing: no tenant, and no observation,
      // which would let a forger end someone else's proposal.
      expect(audit).toMatchObject({
        code: 'forged_envelope',
        stage: 'authentication',
        outcome: null,
        tenant: null,
        subject: null,
      });
      expect(audit['internalDetail']).toMatch(/claims tenant "(acme|globex)", subject "alice"/);
    }
    expect((await auditOf(h, 'p-tampered'))['internalDetail']).toContain('"globex"');
    expect((await auditOf(h, 'p-untagged'))['internalDetail']).toContain(
      'no toolgate-integrity header',
    );
    const [undecodable] = await h.waitFor(
      'audit',
      'the audit of the plain JSON envelope',
      (r) => r.value['code'] === 'forged_envelope' && r.value['proposalId'] === null,
    );
    expect(undecodable!.value['internalDetail']).toMatch(/undecodable/);
    expect(await forwardedBefore(h, runId)).toEqual([]);
    expect(await observedBefore(h, runId)).toEqual([]);
    expect(commandsSeen(h)).toBe(0);
  });

  it('refuses an envelope whose tool version is not loaded here as an internal error', async () => {
    const runId = 'run-version';
    const stale = {
      ...validated(h, USERS.alice, { proposalId: 'p-stale', runId }, 'lookup', { query: 'x' }),
      toolVersion: '0',
    };
    await feed(h, stale);

    expect(await observationOf(h, 'p-stale')).toMatchObject({
      outcome: 'rejected',
      stage: 'execution',
      code: 'internal_error',
      disposition: 'deny',
    });
    expect((await auditOf(h, 'p-stale'))['internalDetail']).toContain(
      'lookup@0 is not loaded here',
    );
    expect(await forwardedBefore(h, runId)).toEqual([]);
  });
});

describe('the authorize stage on a Redis of its own', () => {
  let redis: PrivateRedis;
  let h: GateHarness;
  beforeAll(async () => {
    redis = await startPrivateRedis();
    h = await startGateHarness({
      label: 'authorize-redis',
      modules: [authorize],
      env: { TOOLGATE_REDIS_URL: redis.url },
    });
  });
  afterAll(async () => {
    await h?.close();
    await redis?.close();
  });

  it('forwards nothing while Redis is down and everything, in order, once it is back', async () => {
    const runId = 'run-outage';
    await redis.stop();
    await feed(
      h,
      validated(h, USERS.alice, { proposalId: 'p-during-1', runId }, 'lookup', { query: 'x' }),
    );
    const args = { ticket_id: 'tkt_1', resolution: 'done' };
    await feed(
      h,
      validated(h, USERS.alice, { proposalId: 'p-during-2', runId }, 'close_ticket', args),
    );

    // Two faults on the first envelope: it was tried, paused, and tried again, never skipped.
    await eventually(
      30_000,
      'the stage to meet Redis down twice',
      async () => (await redisFaults(h)) >= 2,
      50,
    );
    const ofRun = (short: string) => h.seen(short).filter((r) => r.value['runId'] === runId);
    expect(ofRun('authorized')).toEqual([]);
    expect(ofRun('observations')).toEqual([]);
    expect(ofRun('audit')).toEqual([]);

    await redis.start();
    const forwarded = await h.waitFor(
      'authorized',
      'both envelopes after the outage',
      (r) => r.value['runId'] === runId,
      2,
    );
    expect(forwarded.map((r) => r.value['proposalId'])).toEqual(['p-during-1', 'p-during-2']);
    expect(forwarded[1]!.value['objects']).toMatchObject([{ id: 'tkt_1', version: 1 }]);
    expect(ofRun('observations')).toEqual([]);
    // The waits for Redis are in /metrics, the failed calls apart.
    const calls = await storeCalls(h);
    expect(calls['get_record fault']).toBeGreaterThanOrEqual(1);
    expect(calls['get_record ok']).toBeGreaterThanOrEqual(2);
  });
});

describe('the authorize stage behind the validate stage', () => {
  let h: GateHarness;
  beforeAll(async () => {
    h = await startGateHarness({ label: 'authorize-e2e', modules: [validate, authorize] });
  });
  afterAll(() => h?.close());

  it("authorizes what validate forwards, keeping the proposal's receivedAt", async () => {
    const alice = await h.session(USERS.alice);
    const args = { ticket_id: 'tkt_2', resolution: 'dropped' };
    const proposal = openaiChat({ proposalId: 'p-e2e', runId: 'run-e2e' }, 'close_ticket', args);
    await h.send('proposals', 'run-e2e', proposal, sessionHeaders(alice));

    const [envelope] = await h.waitFor(
      'authorized',
      'the envelope of p-e2e',
      (r) => r.value['proposalId'] === 'p-e2e',
    );
    const [before] = h.seen('validated').filter((r) => r.value['proposalId'] === 'p-e2e');
    expect(envelope!.value).toMatchObject({
      tool: 'close_ticket',
      objects: [{ type: 'Ticket', id: 'tkt_2', version: 1 }],
      receivedAt: before!.value['receivedAt'],
    });
  });
  it("refuses at authorization a call whose arguments break a policy's rule, and forwards it within the rule", async () => {
    const bob = await h.session(USERS.bob);
    const runId = 'run-args';
    const lookup = (proposalId: string, limit: number) =>
      openaiChat({ proposalId, runId }, 'lookup', { query: 'open tickets', limit });
    // Policy "viewers-look-up-at-most-5" reads context.args.limit.
    await h.send('proposals', runId, lookup('p-args-6', 6), sessionHeaders(bob));
    await h.send('proposals', runId, lookup('p-args-5', 5), sessionHeaders(bob));

    const [within] = await h.waitFor(
      'authorized',
      'the envelope of p-args-5',
      (r) => r.value['proposalId'] === 'p-args-5',
    );
    expect(within!.value).toMatchObject({ tool: 'lookup', args: { limit: 5 } });
    // Same partition, in order: had p-args-6 been forwarded, it would be seen before p-args-5.
    const forwarded = h.seen('authorized').filter((r) => r.value['runId'] === runId);
    expect(forwarded.map((r) => r.value['proposalId'])).toEqual(['p-args-5']);
    const [refused] = await h.waitFor(
      'observations',
      'the observation of p-args-6',
      (r) => r.value['proposalId'] === 'p-args-6',
    );
    expect(refused!.value).toMatchObject({
      outcome: 'rejected',
      stage: 'authorization',
      code: 'not_authorized',
      message: 'This action is not allowed.',
    });
    expectNoLeak(refused!.value, [...NEVER_PUBLIC, 'viewers-look-up']);
    const [audit] = await h.waitFor(
      'audit',
      'the audit event of p-args-6',
      (r) => r.value['proposalId'] === 'p-args-6',
    );
    expect(audit!.value['internalDetail']).toContain('denied by viewers-look-up-at-most-5');
  });
});

/** `toolgate_store_seconds_count` of the stage by `"<op> <result>"`, from /metrics. */
async function storeCalls(h: GateHarness): Promise<Record<string, number>> {
  const response = await fetch(`http://127.0.0.1:${h.gate.ports['authorize']}/metrics`);
  const calls: Record<string, number> = {};
  for (const line of (await response.text()).split('\n')) {
    const m = /^toolgate_store_seconds_count\{.*op="([^"]+)",result="([a-z]+)"\} (\d+)$/.exec(line);
    if (m !== null) calls[`${m[1]} ${m[2]}`] = Number(m[3]);
  }
  return calls;
}

/** `toolgate_faults_total{code="redis_unavailable",retriable="true"}` of the stage, from /metrics. */
async function redisFaults(h: GateHarness): Promise<number> {
  const response = await fetch(`http://127.0.0.1:${h.gate.ports['authorize']}/metrics`);
  const text = await response.text();
  const line = text
    .split('\n')
    .find((l) => l.startsWith('toolgate_faults_total{') && l.includes('code="redis_unavailable"'));
  return line === undefined ? 0 : Number(line.split(' ').at(-1));
}
