/**
 * The Redis store on a real Redis Cluster (three primaries, a replica each, started by this file on
 * ports 17001–17006 and stopped after): idempotency claims with their pending commands, the
 * deadline sweep across shards, confirmations parked, taken and swept for several tenants, the
 * decided history and a tool worker's ledger, each script's keys in one slot. Last, a primary is
 * SIGKILLed under a stream of claims: claims resume once its replica is promoted, and every claim
 * acknowledged before, during or after the failover is still there.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  connectRedis,
  createGateStore,
  createLedger,
  MIN_RECORD_TTL_SECONDS,
  SWEEP_SHARDS,
  type GateStore,
  type PendingCommand,
  type RedisConnection,
} from '@toolgate/platform';
import type { DecidedView, IdempotencyRecord, PendingConfirmation } from '@toolgate/shared';
import { Cluster } from 'ioredis';
import { REDIS_ADMIN } from '../../infra/redis.js';
import { eventually, promiseCallbacksRun } from '../support/deadline.js';
import { pendingCommand } from '../support/pending-command.js';
import { startTestCluster, type TestCluster } from '../support/test-cluster.js';
import { storedPending } from '../support/pending-confirmation.js';

const prefix = `tgc-${randomUUID().slice(0, 8)}:`;
const NOW = 1_800_000_000_000;
const TTL = 30 * 60 * 1000;
const TENANTS = ['acme', 'globex', 'initech', 'umbrella', 'hooli', 'stark'];

let test: TestCluster;
let conn: RedisConnection;
let store: GateStore;
let admin: Cluster;

beforeAll(async () => {
  test = await startTestCluster();
  conn = connectRedis({ url: test.gateUrl, prefix, timeoutMs: 2000 });
  store = createGateStore(conn);
  const nodes = test.cluster.nodes.map((n) => ({
    host: '127.0.0.1',
    port: Number(n.split(':')[1]),
  }));
  admin = new Cluster(nodes, {
    redisOptions: { username: REDIS_ADMIN, password: test.adminPassword },
  });
  await conn.ping();
});

afterAll(async () => {
  await conn?.close();
  admin?.disconnect();
  await test?.stop();
});

const record = (token: string): IdempotencyRecord => ({ state: 'claimed', token, digest: 'd1' });

const commandOf = (tenant: string, id: string, deadlineMs = NOW): PendingCommand => ({
  ...pendingCommand(id, deadlineMs),
  tenant,
  idempotencyKey: `key-${id}`,
});

describe('idempotency claims and pending commands on a Redis Cluster', () => {
  it('claims a key once, stores its command, and settles it when the result takes it', async () => {
    const p = commandOf('acme', `cmd-${randomUUID()}`);
    const claim = { tenant: 'acme', key: p.idempotencyKey, ttlSeconds: MIN_RECORD_TTL_SECONDS };
    const request = { ...claim, record: record(p.token), pending: p, deadlineMs: NOW };
    expect(await store.pendingCommands.claimWithPending(request)).toEqual({ claimed: true });
    const again = { ...request, record: record('another proposal') };
    expect(await store.pendingCommands.claimWithPending(again)).toEqual({
      claimed: false,
      record: record(p.token),
    });
    expect(await store.pendingCommands.peekPendingCommand(p.commandId)).toEqual(p);
    const done: IdempotencyRecord = { ...record(p.token), state: 'done' };
    const taken = await store.pendingCommands.takeAndSettle({
      expected: p,
      takerToken: 'results@0:1',
      record: done,
      ttlSeconds: MIN_RECORD_TTL_SECONDS,
      settlerToken: 'results@0:1',
    });
    expect(taken).toMatchObject({ outcome: 'taken', settled: true });
    expect(await store.idempotency.getRecord('acme', p.idempotencyKey)).toEqual(done);
    expect(await store.pendingCommands.takePendingCommand(p.commandId, 'someone else')).toBe(
      undefined,
    );
  });

  it('sweeps the deadlines of commands spread over every shard, and finishes them', async () => {
    const commands = Array.from({ length: 4 * SWEEP_SHARDS }, (_, i) =>
      commandOf(TENANTS[i % TENANTS.length] ?? 'acme', `cmd-${randomUUID()}`, NOW - 1000),
    );
    for (const p of commands) await store.pendingCommands.putPendingCommand(p, NOW - 1000);
    const shards = new Set(commands.map((p) => conn.keys.deadlinesOf(p.commandId)));
    expect(shards.size).toBeGreaterThan(SWEEP_SHARDS / 2);
    const slots = await Promise.all([...shards].map((k) => admin.cluster('KEYSLOT', k)));
    expect(new Set(slots).size).toBe(shards.size);

    const claim = await store.pendingCommands.claimExpiredCommands(NOW, 60_000, 1000);
    const ids = (list: readonly PendingCommand[]) => list.map((p) => p.commandId).sort();
    expect(ids(claim.claimed)).toEqual(ids(commands));
    expect((await store.pendingCommands.claimExpiredCommands(NOW, 60_000, 1000)).claimed).toEqual(
      [],
    );
    const limited = await store.pendingCommands.claimExpiredCommands(NOW + 60_000, 60_000, 5);
    expect(limited.claimed).toHaveLength(5);
    for (const p of commands) await store.pendingCommands.finishExpiredCommand(p.commandId);
    const after = await store.pendingCommands.claimExpiredCommands(NOW + 10 * TTL, 60_000, 1000);
    expect(after.claimed).toEqual([]);
  });
});

describe('confirmations on a Redis Cluster', () => {
  const PARKER = 'authorized@1:7';
  const pending = (id: string, tenant: string, expiresInMs = TTL): PendingConfirmation =>
    storedPending(id, tenant, NOW, expiresInMs);

  it('parks once, lists, and lets one approval take it', async () => {
    const id = `conf-${randomUUID()}`;
    const c = pending(id, 'acme');
    expect(await store.confirmations.parkConfirmation(c, TTL, PARKER)).toEqual({ publish: c });
    expect(await store.confirmations.parkConfirmation(c, TTL, 'authorized@1:8')).toEqual({
      standing: c,
    });
    const window = await store.confirmations.listPending('acme', { expiredUpToMs: 0, size: 100 });
    expect(window.entries.map((e) => e.pending)).toContainEqual(c);
    expect(await store.confirmations.takeConfirmation('acme', id, 'approvals@0:1')).toEqual(c);
    expect(await store.confirmations.takeConfirmation('acme', id, 'approvals@0:2')).toBe(undefined);
    expect((await store.confirmations.readConfirmation('acme', id))?.state).toBe('taken');
  });

  it("sweeps every tenant's expired confirmations, whose indexes lie in several slots", async () => {
    const parked = TENANTS.flatMap((tenant) =>
      [0, 1].map(() => pending(`conf-${randomUUID()}`, tenant, -1)),
    );
    for (const c of parked) await store.confirmations.parkConfirmation(c, 1, PARKER);
    const indexes = TENANTS.map((t) => conn.keys.confirmationExpiry(t));
    const slots = await Promise.all(indexes.map((k) => admin.cluster('KEYSLOT', k)));
    expect(new Set(slots).size).toBe(TENANTS.length);

    const claim = await store.confirmations.claimExpiredConfirmations(NOW, 60_000, 1000);
    const ids = (list: readonly PendingConfirmation[]) => list.map((c) => c.confirmationId).sort();
    expect(ids(claim.claimed)).toEqual(ids(parked));
    for (const c of parked) {
      expect(await store.confirmations.takeConfirmation(c.tenant, c.confirmationId, 'late')).toBe(
        undefined,
      );
      expect(await store.confirmations.finishExpiredConfirmation(c.tenant, c.confirmationId)).toBe(
        true,
      );
    }
    const later = await store.confirmations.claimExpiredConfirmations(NOW + TTL, 60_000, 1000);
    expect(later.claimed).toEqual([]);
  });

  it('keeps and pages the decided history of a tenant', async () => {
    const views = [1, 2, 3].map((n): DecidedView => ({
      confirmationId: `conf-${n}-${randomUUID()}`,
      proposalId: `p-${n}`,
      runId: 'run-1',
      tenant: 'globex',
      tool: 'delete_invoice',
      requestedBy: 'alice',
      card: { action: 'Delete invoice', target: 'inv-1', effect: 'gone', preview: {} },
      outcome: 'approved',
      decidedBy: 'bob',
      decidedAt: new Date(NOW + n).toISOString(),
    }));
    for (const v of views) await store.confirmations.recordDecided(v);
    const first = await store.confirmations.listDecided('globex', { size: 2 });
    expect(first.entries.map((e) => e.view)).toEqual([views[2], views[1]]);
    expect(first.more).toBe(true);
    const after = first.entries[1]?.position;
    expect(after).toBeDefined();
    const next = await store.confirmations.listDecided('globex', {
      ...(after && { after }),
      size: 2,
    });
    expect(next.entries.map((e) => e.view)).toEqual([views[0]]);
  });
});

describe("a tool worker's ledger on a Redis Cluster", () => {
  it('claims a key, records its result once, and replays it', async () => {
    const worker = connectRedis({ url: test.workerUrl, prefix: 'toolgate:' });
    try {
      const ledger = createLedger(worker);
      const key = `key-${randomUUID()}`;
      const claimant = { token: 'cmd-1', digest: 'd1', tool: 'refund', claimedAt: 'now' };
      const ttl = MIN_RECORD_TTL_SECONDS;
      expect(await ledger.ledgerClaim('acme', key, claimant, ttl)).toEqual({ outcome: 'claimed' });
      const result = {
        commandId: 'cmd-1',
        idempotencyKey: key,
        runId: 'run-1',
        status: 'ok' as const,
        completedAt: new Date(NOW).toISOString(),
      };
      expect(await ledger.ledgerPut('acme', key, claimant, result, ttl)).toEqual({
        outcome: 'recorded',
        result,
      });
      expect(await ledger.ledgerClaim('acme', key, { ...claimant, token: 'cmd-2' }, ttl)).toEqual({
        outcome: 'done',
        result,
        token: 'cmd-1',
      });
    } finally {
      await worker.close();
    }
  });
});

describe('a primary killed under claims', () => {
  // Enough tenants that some live in the slots of whichever primary is killed.
  const tenants = Array.from({ length: 24 }, (_, i) => `tenant-${i}`);

  it('resumes claims once the replica is promoted and loses no acknowledged claim', async () => {
    const acknowledged: { tenant: string; key: string; token: string; at: number }[] = [];
    const failures: number[] = [];
    let stop = false;
    const writer = async (w: number) => {
      for (let i = 0; !stop; i += 1) {
        const tenant = tenants[(w * 7 + i) % tenants.length] ?? 'acme';
        const p = commandOf(tenant, `cmd-f${w}-${i}-${randomUUID().slice(0, 8)}`, NOW + TTL);
        const { idempotencyKey: key, token } = p;
        const request = { tenant, key, record: record(token), pending: p, deadlineMs: NOW + TTL };
        try {
          await store.pendingCommands.claimWithPending({
            ...request,
            ttlSeconds: MIN_RECORD_TTL_SECONDS,
          });
          acknowledged.push({ tenant, key, token, at: Date.now() });
        } catch {
          failures.push(Date.now());
          // A claim that fails at once must still let timers run.
          await promiseCallbacksRun();
        }
      }
    };
    // Every replica in sync before the writes start: one still syncing cannot hold them.
    await test.cluster.whenHealthy(30_000);
    const primariesBefore = await test.cluster.primaries();
    const writers = [0, 1, 2, 3].map(writer);
    let killedAt = 0;
    let node = -1;
    try {
      await eventually(10_000, 'claims before the kill', () =>
        Promise.resolve(acknowledged.length > 200),
      );
      killedAt = Date.now();
      node = await test.cluster.killPrimary(0);
      // Claims on the dead primary's slots fail, or ride out the failover on the client's
      // retries: either way the replica is promoted and claims go on.
      await eventually(30_000, 'the replica promoted', async () => {
        const now = await test.cluster.primaries();
        return now.length === primariesBefore.length && !now.includes(node);
      });
      const count = acknowledged.length;
      await eventually(20_000, 'claims after the failover', () =>
        Promise.resolve(acknowledged.length > count + 200),
      );
    } finally {
      stop = true;
      await Promise.all(writers);
    }
    // The longest stretch after the kill with no claim acknowledged: how long the failover held
    // claims up.
    const after = [killedAt, ...acknowledged.map((a) => a.at).filter((at) => at >= killedAt)];
    const holdUp = Math.max(...after.slice(1).map((at, i) => at - (after[i] ?? at)));
    console.info(
      `failover: primary (node ${node}) SIGKILLed; claims held up for at most ${holdUp} ms; ` +
        `${failures.length} claims failed, ${acknowledged.length} acknowledged; primaries ` +
        `before ${primariesBefore.join(',')}, after ${(await test.cluster.primaries()).join(',')}`,
    );

    const lost = [];
    for (const { tenant, key, token } of acknowledged) {
      const found = await store.idempotency.getRecord(tenant, key);
      if (found?.token !== token) lost.push(key);
    }
    expect(lost).toEqual([]);
    expect(holdUp).toBeLessThan(15_000);

    await test.cluster.restartNode(node);
    await test.cluster.whenHealthy(30_000);
  });
});
