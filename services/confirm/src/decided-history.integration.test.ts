import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  connectRedis,
  createConfirmations,
  type Confirmations,
  type RedisConnection,
} from '@toolgate/platform';
import { decidedView, type DecidedView, type Principal } from '@toolgate/shared';
import deployment, { USERS } from '../../../test/support/deployment/index.js';
import {
  sessionHeaders,
  startGateHarness,
  type GateHarness,
} from '../../../test/support/gate-harness.js';
import { dropNamespace, testNamespace } from '../../../test/support/namespace.js';
import { redisClient, stackAddresses } from '../../../test/support/stack.js';
import {
  approvalApi,
  bearerOf,
  DAVE,
  parked,
  refund,
  waitingConfirmation,
} from './confirm-fixtures.test-support.js';
import * as confirm from './service.js';

/** An approver of acme who neither asked nor decided anything here. */
const ERIN: Principal = { subject: 'erin', tenant: 'acme', roles: ['approver'] };
/** Alice and Dave, signed in as viewers: policy lets neither approve any more. */
const ALICE_VIEWING: Principal = { ...USERS.alice, roles: ['viewer'] };
const DAVE_VIEWING: Principal = { ...DAVE, roles: ['viewer'] };

interface Listed {
  readonly tenant: string;
  readonly confirmations: readonly DecidedView[];
  readonly next?: string;
}

/** `who` decides the confirmation of `proposalId` and the test waits for its terminal outcome. */
async function decided(
  h: GateHarness,
  proposalId: string,
  who: Principal,
  decision: 'approve' | 'reject',
) {
  const { id, digest } = await parked(h, refund(proposalId));
  const value = { confirmationId: id, decision, digest };
  await h.send('approvals', id, value, sessionHeaders(await h.session(who)));
  const [topic, ended] =
    decision === 'approve' ? ['cleared', undefined] : ['observations', 'rejected'];
  await h.waitFor(
    topic,
    `the end of ${proposalId}`,
    (r) => r.value['proposalId'] === proposalId && r.value['outcome'] === ended,
  );
  return id;
}

/** `GET path` on `h`'s approval API as `who` (no session when undefined). */
async function get(h: GateHarness, path: string, who?: Principal) {
  return fetch(approvalApi(h, path), { headers: await bearerOf(h, who) });
}

async function listed(h: GateHarness, path: string, who: Principal): Promise<Listed> {
  const response = await get(h, path, who);
  expect(response.status).toBe(200);
  return (await response.json()) as Listed;
}

const idsOf = (page: Listed) => page.confirmations.map((c) => c.confirmationId);

describe('GET /decided on the confirm stage', () => {
  let h: GateHarness;
  let approved: string;
  let rejected: string;
  let before: number;
  let after: number;

  beforeAll(async () => {
    h = await startGateHarness({
      label: 'confirm-decided',
      modules: [confirm],
      tap: ['observations', 'cleared', 'confirmations'],
    });
    before = Date.now();
    approved = await decided(h, 'p-dh-approve', DAVE, 'approve');
    rejected = await decided(h, 'p-dh-reject', DAVE, 'reject');
    after = Date.now();
  });
  afterAll(() => h?.close());

  it('lists an approval and a rejection, newest first, with who asked, who decided and when', async () => {
    const page = await listed(h, '/decided', USERS.alice);
    expect(page.tenant).toBe('acme');
    expect(idsOf(page)).toEqual([rejected, approved]);
    const [rejection, approval] = page.confirmations;
    expect(approval).toMatchObject({
      proposalId: 'p-dh-approve',
      runId: 'run-p-dh-approve',
      tenant: 'acme',
      tool: 'refund',
      requestedBy: 'alice',
      outcome: 'approved',
      decidedBy: 'dave',
      card: { action: 'Refund payment' },
    });
    expect(rejection).toMatchObject({ outcome: 'rejected', decidedBy: 'dave' });
    for (const view of page.confirmations) {
      const at = Date.parse(view.decidedAt);
      expect(at).toBeGreaterThanOrEqual(before);
      expect(at).toBeLessThanOrEqual(after);
      expect(view).not.toHaveProperty('args');
    }
  });

  it('filters by tool, run, outcome and decider, each an exact match', async () => {
    const ids = async (query: string) => idsOf(await listed(h, `/decided?${query}`, USERS.alice));
    expect(await ids('outcome=rejected')).toEqual([rejected]);
    expect(await ids('outcome=approved&decidedBy=dave')).toEqual([approved]);
    expect(await ids('runId=run-p-dh-approve')).toEqual([approved]);
    expect(await ids('runId=run-p-dh')).toEqual([]);
    expect(await ids('decidedBy=dave')).toEqual([rejected, approved]);
    expect(await ids('decidedBy=alice')).toEqual([]);
    expect(await ids('tool=refund')).toEqual([rejected, approved]);
    expect(await ids('tool=lookup')).toEqual([]);
    expect(await ids('outcome=expired')).toEqual([]);
  });

  it('pages with a cursor that resumes after the last record shown', async () => {
    const first = await listed(h, '/decided?limit=1', USERS.alice);
    expect(idsOf(first)).toEqual([rejected]);
    expect(first.next).toEqual(expect.any(String));
    const second = await listed(h, `/decided?limit=1&cursor=${first.next ?? ''}`, USERS.alice);
    expect(second).toEqual({ tenant: 'acme', confirmations: [expect.any(Object)] });
    expect(idsOf(second)).toEqual([approved]);
  });

  it('shows a record to its requester, its decider and approvers of its tool, and nobody else', async () => {
    expect(idsOf(await listed(h, '/decided', ERIN))).toEqual([rejected, approved]);
    // Policy lets them approve nothing now, but one asked for both calls and one decided them.
    expect(idsOf(await listed(h, '/decided', ALICE_VIEWING))).toEqual([rejected, approved]);
    expect(idsOf(await listed(h, '/decided', DAVE_VIEWING))).toEqual([rejected, approved]);
    expect(idsOf(await listed(h, '/decided', USERS.bob))).toEqual([]);
    const theirs = await listed(h, '/decided', USERS.carol);
    expect(theirs).toEqual({ tenant: 'globex', confirmations: [] });
  });

  it('refuses a caller without a session, another tenant, and a query it cannot read', async () => {
    expect((await get(h, '/decided')).status).toBe(401);
    expect((await get(h, '/decided?tenant=acme', USERS.carol)).status).toBe(403);
    for (const query of ['outcome=won', 'limit=0', 'limit=101', 'cursor=forged', 'tool=']) {
      const response = await get(h, `/decided?${query}`, USERS.alice);
      expect(response.status, query).toBe(400);
      expect(await response.json(), query).toMatchObject({ error: { code: /^invalid_/ } });
    }
  });
});

describe('GET /decided when nobody answers', () => {
  let h: GateHarness;
  beforeAll(async () => {
    h = await startGateHarness({
      label: 'confirm-decided-expiry',
      modules: [confirm],
      tap: ['observations', 'confirmations'],
      deployment: { ...deployment, confirmationTtlSeconds: 2 },
    });
  });
  afterAll(() => h?.close());

  it('lists an expired confirmation with no decider', async () => {
    const { id } = await parked(h, refund('p-dh-expire'));
    await h.waitFor(
      'observations',
      'the expiry',
      (r) => r.value['proposalId'] === 'p-dh-expire' && r.value['outcome'] === 'expired',
    );
    const page = await listed(h, '/decided?outcome=expired', USERS.alice);
    expect(page.confirmations).toHaveLength(1);
    expect(page.confirmations[0]).toMatchObject({
      confirmationId: id,
      outcome: 'expired',
      requestedBy: 'alice',
    });
    expect(page.confirmations[0]).not.toHaveProperty('decidedBy');
  });
});

describe('the decided history in Redis', () => {
  const ns = testNamespace('confirm-decided-store');
  let redis: RedisConnection;
  let history: Confirmations;
  const at = (ms: number) => new Date(Date.parse('2030-01-01T00:00:00Z') + ms);
  const pending = (id: string) => waitingConfirmation(id, at(60_000).getTime());
  const record = (id: string, ms: number, decidedBy = 'dave') =>
    history.recordDecided(decidedView(pending(id), { outcome: 'approved', decidedBy }, at(ms)));
  const all = async () =>
    (await history.listDecided('acme', { size: 100 })).entries.map((e) => [
      e.position.confirmationId,
      e.view?.decidedBy,
    ]);

  beforeAll(() => {
    redis = connectRedis({ url: stackAddresses().redisUrl, prefix: ns.redisPrefix });
    history = createConfirmations(redis, { decidedCap: 3 });
  });
  afterAll(async () => {
    await redis.close();
    const admin = redisClient();
    await dropNamespace(ns, { redis: admin }).finally(() => admin.disconnect());
  });

  it('keeps one record per confirmation: a retry replaces it, never adds one', async () => {
    await record('c-1', 1000);
    await record('c-1', 1500, 'dave-again');
    expect(await all()).toEqual([['c-1', 'dave-again']]);
  });

  it('keeps the newest records up to its cap and deletes the ones it drops', async () => {
    await record('c-2', 2000);
    await record('c-3', 3000);
    await record('c-4', 3000);
    expect(await all()).toEqual([
      ['c-4', 'dave'],
      ['c-3', 'dave'],
      ['c-2', 'dave'],
    ]);
    const admin = redisClient();
    try {
      expect(await admin.exists(redis.keys.decided('acme', 'c-1'))).toBe(0);
      const ttl = await admin.pttl(redis.keys.decided('acme', 'c-4'));
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(7 * 24 * 3600 * 1000);
    } finally {
      admin.disconnect();
    }
  });

  it('pages records of the same millisecond without repeating or skipping one', async () => {
    const first = await history.listDecided('acme', { size: 1 });
    expect(first.more).toBe(true);
    const after = first.entries[0]!.position;
    expect(after).toEqual({ decidedAtMs: at(3000).getTime(), confirmationId: 'c-4' });
    const next = await history.listDecided('acme', { after, size: 5 });
    expect(next.entries.map((e) => e.position.confirmationId)).toEqual(['c-3', 'c-2']);
    expect(next.more).toBe(false);
  });
});
