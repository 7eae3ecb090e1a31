/**
 * The tool workers' ledger in the Redis store, against the real Redis: a claim before any side
 * effect, a result recorded once, and every race these exist to settle. Keys live under this
 * file's namespace and are dropped afterwards.
 */
import {
  connectRedis,
  createLedger,
  MIN_RECORD_TTL_SECONDS,
  storeKeys,
  type Ledger,
  type RedisConnection,
} from '@toolgate/platform';
import type { ToolResult } from '@toolgate/shared';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dropNamespace, testNamespace } from '../support/namespace.js';
import { redisClient, stackAddresses } from '../support/stack.js';

const ns = testNamespace('tw-ledger');
const TTL = MIN_RECORD_TTL_SECONDS;
const layout = storeKeys(ns.redisPrefix);
const opened: RedisConnection[] = [];
let admin: Redis;
let store: Ledger;

/** The ledger on a connection of its own. */
function openStore(): Ledger {
  const conn = connectRedis({ url: stackAddresses().redisUrl, prefix: ns.redisPrefix });
  opened.push(conn);
  return createLedger(conn);
}

beforeAll(async () => {
  admin = redisClient();
  store = openStore();
  await store.ping();
});

afterAll(async () => {
  await Promise.all(opened.map((s) => s.close()));
  await dropNamespace(ns, { redis: admin });
  admin.disconnect();
});

let keys = 0;
/** A fresh idempotency key per test. */
const freshKey = () => `key-${(keys += 1)}`;

const claimant = (token: string, digest = 'd1', holder?: string) => ({
  token,
  digest,
  tool: 'approve_invoice',
  claimedAt: '2030-01-01T00:00:00.000Z',
  ...(holder === undefined ? {} : { holder }),
});

/** Redis's clock, in ms: the one leases are read on. */
async function redisNow(): Promise<number> {
  const [seconds, micros] = await admin.time();
  return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
}

/** Resolves once Redis's clock has passed `ms`; fails after 5 s. */
async function redisPassed(ms: number): Promise<void> {
  const deadline = Date.now() + 5_000;
  while ((await redisNow()) <= ms) {
    if (Date.now() > deadline) throw new Error(`Redis's clock did not pass ${String(ms)}`);
  }
}

const result = (commandId: string, output: unknown = { ok: 1 }): ToolResult => ({
  commandId,
  idempotencyKey: 'k',
  runId: 'run-1',
  status: 'ok',
  output,
  completedAt: '2030-01-01T00:00:01.000Z',
});

describe('the ledger: claims', () => {
  it('claims a new key once; the same command asking again resumes, another is busy', async () => {
    const key = freshKey();
    expect(await store.ledgerClaim('acme', key, claimant('cmd-a'), TTL)).toEqual({
      outcome: 'claimed',
    });
    expect(await store.ledgerClaim('acme', key, claimant('cmd-a'), TTL)).toEqual({
      outcome: 'resumed',
      attempts: 2,
    });
    expect(await store.ledgerClaim('acme', key, claimant('cmd-b'), TTL)).toEqual({
      outcome: 'busy',
      token: 'cmd-a',
    });
    const entry = await store.ledgerGet('acme', key);
    expect(entry).toMatchObject({ state: 'running', token: 'cmd-a', digest: 'd1', attempts: 2 });
    expect(entry?.result).toBeUndefined();
  });

  it('answers conflict for the same key with another digest, before or after a result', async () => {
    const key = freshKey();
    await store.ledgerClaim('acme', key, claimant('cmd-a', 'd1'), TTL);
    expect(await store.ledgerClaim('acme', key, claimant('cmd-a', 'd2'), TTL)).toEqual({
      outcome: 'conflict',
      token: 'cmd-a',
    });
    await store.ledgerPut('acme', key, claimant('cmd-a'), result('cmd-a'), TTL);
    expect(await store.ledgerClaim('acme', key, claimant('cmd-b', 'd2'), TTL)).toMatchObject({
      outcome: 'conflict',
    });
  });

  it('lets exactly one of ten concurrent claims of one key be the first', async () => {
    const key = freshKey();
    const racers = Array.from({ length: 10 }, () => openStore());
    const answers = await Promise.all(
      racers.map((s, i) => s.ledgerClaim('acme', key, claimant(`cmd-${i}`), TTL)),
    );
    expect(answers.filter((a) => a.outcome === 'claimed')).toHaveLength(1);
    expect(answers.filter((a) => a.outcome === 'busy')).toHaveLength(9);
  });

  it("keeps tenants apart: the same key of another tenant is another entry in that tenant's slot", async () => {
    const key = freshKey();
    await store.ledgerClaim('acme', key, claimant('cmd-a'), TTL);
    expect(await store.ledgerClaim('globex', key, claimant('cmd-g'), TTL)).toEqual({
      outcome: 'claimed',
    });
    expect(await store.ledgerGet('globex', key)).toMatchObject({ token: 'cmd-g' });
    expect(layout.ledger('acme', key)).toMatch(/^[^{]*ledger:\{[0-9a-f]{16}\}:/);
  });

  it('refuses a retention below 24 hours before writing anything', async () => {
    const key = freshKey();
    await expect(store.ledgerClaim('acme', key, claimant('cmd-a'), 60)).rejects.toThrow(RangeError);
    expect(await store.ledgerGet('acme', key)).toBeUndefined();
  });
});

describe('the ledger: leases', () => {
  const LEASE = 15_000;

  it('gives the claiming delivery a lease on the Redis clock', async () => {
    const key = freshKey();
    const before = await redisNow();
    await store.ledgerClaim('acme', key, claimant('cmd-a', 'd1', 'delivery-1'), TTL, LEASE);
    const entry = await store.ledgerGet('acme', key);
    expect(entry).toMatchObject({ state: 'running', holder: 'delivery-1' });
    expect(entry?.leaseUntil).toBeGreaterThanOrEqual(before + LEASE);
    expect(entry?.leaseUntil).toBeLessThanOrEqual((await redisNow()) + LEASE);
  });

  it('tells another delivery of the same command that it runs, while the lease is live', async () => {
    const key = freshKey();
    await store.ledgerClaim('acme', key, claimant('cmd-a', 'd1', 'delivery-1'), TTL, LEASE);
    const { leaseUntil } = (await store.ledgerGet('acme', key)) ?? {};
    expect(
      await store.ledgerClaim('acme', key, claimant('cmd-a', 'd1', 'delivery-2'), TTL, LEASE),
    ).toEqual({ outcome: 'running', holder: 'delivery-1', leaseUntil });
    // Nothing changed hands: the first delivery is still the holder, on its first attempt.
    expect(await store.ledgerGet('acme', key)).toMatchObject({
      holder: 'delivery-1',
      attempts: 1,
      leaseUntil,
    });
    // Another command under the key is still busy, whatever the lease.
    expect(await store.ledgerClaim('acme', key, claimant('cmd-b', 'd1', 'x'), TTL)).toEqual({
      outcome: 'busy',
      token: 'cmd-a',
    });
  });

  it('lets another delivery resume once the lease has lapsed, and take it over', async () => {
    const key = freshKey();
    await store.ledgerClaim('acme', key, claimant('cmd-a', 'd1', 'delivery-1'), TTL, 1);
    const { leaseUntil = 0 } = (await store.ledgerGet('acme', key)) ?? {};
    await redisPassed(leaseUntil);
    expect(
      await store.ledgerClaim('acme', key, claimant('cmd-a', 'd1', 'delivery-2'), TTL, LEASE),
    ).toEqual({ outcome: 'resumed', attempts: 2 });
    expect(await store.ledgerGet('acme', key)).toMatchObject({ holder: 'delivery-2' });
    // The paused first delivery wakes: its renewal fails, naming the new holder.
    expect(
      await store.ledgerRenew('acme', key, claimant('cmd-a', 'd1', 'delivery-1'), LEASE),
    ).toEqual({ outcome: 'lost', holder: 'delivery-2' });
  });

  it('lets the holder end its lease at once, so a redelivery resumes without waiting', async () => {
    const key = freshKey();
    await store.ledgerClaim('acme', key, claimant('cmd-a', 'd1', 'delivery-1'), TTL, LEASE);
    const other = claimant('cmd-a', 'd1', 'delivery-2');
    expect(await store.ledgerRelease('acme', key, other)).toEqual({
      outcome: 'lost',
      holder: 'delivery-1',
    });
    expect(await store.ledgerClaim('acme', key, other, TTL, LEASE)).toMatchObject({
      outcome: 'running',
    });
    const released = claimant('cmd-a', 'd1', 'delivery-1');
    expect(await store.ledgerRelease('acme', key, released)).toMatchObject({ outcome: 'renewed' });
    expect(await store.ledgerClaim('acme', key, other, TTL, LEASE)).toEqual({
      outcome: 'resumed',
      attempts: 2,
    });
  });

  it("renews the holder's lease only, and only while the entry runs", async () => {
    const key = freshKey();
    const holder = claimant('cmd-a', 'd1', 'delivery-1');
    await store.ledgerClaim('acme', key, holder, TTL, 1_000);
    const { leaseUntil = 0 } = (await store.ledgerGet('acme', key)) ?? {};
    const renewed = await store.ledgerRenew('acme', key, holder, LEASE);
    expect(renewed).toMatchObject({ outcome: 'renewed' });
    expect(renewed.outcome === 'renewed' && renewed.leaseUntil).toBeGreaterThan(leaseUntil);
    expect(await store.ledgerGet('acme', key)).toMatchObject({
      leaseUntil: renewed.outcome === 'renewed' ? renewed.leaseUntil : -1,
    });
    const other = claimant('cmd-a', 'd1', 'delivery-2');
    expect(await store.ledgerRenew('acme', key, other, LEASE)).toEqual({
      outcome: 'lost',
      holder: 'delivery-1',
    });
    await store.ledgerPut('acme', key, holder, result('cmd-a'), TTL);
    expect(await store.ledgerRenew('acme', key, holder, LEASE)).toMatchObject({ outcome: 'lost' });
    expect(await store.ledgerRenew('acme', freshKey(), holder, LEASE)).toEqual({
      outcome: 'lost',
      holder: '',
    });
  });
});

describe('the ledger: results', () => {
  it('records a result once, for at least the retention, and replays it to any later claim', async () => {
    const key = freshKey();
    await store.ledgerClaim('acme', key, claimant('cmd-a'), TTL);
    const first = await store.ledgerPut('acme', key, claimant('cmd-a'), result('cmd-a'), TTL);
    expect(first).toEqual({ outcome: 'recorded', result: result('cmd-a') });
    const again = await store.ledgerPut('acme', key, claimant('cmd-a'), result('cmd-a', 2), TTL);
    expect(again).toEqual({ outcome: 'kept', result: result('cmd-a') });
    expect(await store.ledgerClaim('acme', key, claimant('cmd-a'), TTL)).toEqual({
      outcome: 'done',
      result: result('cmd-a'),
      token: 'cmd-a',
    });
    expect(await store.ledgerGet('acme', key)).toMatchObject({
      state: 'done',
      result: result('cmd-a'),
      completedAt: result('cmd-a').completedAt,
    });
    expect(await admin.ttl(layout.ledger('acme', key))).toBeGreaterThan(TTL - 60);
  });

  it('keeps the first of two concurrent results of one command', async () => {
    const key = freshKey();
    await store.ledgerClaim('acme', key, claimant('cmd-a'), TTL);
    const [one, two] = await Promise.all([
      openStore().ledgerPut('acme', key, claimant('cmd-a'), result('cmd-a', 'one'), TTL),
      openStore().ledgerPut('acme', key, claimant('cmd-a'), result('cmd-a', 'two'), TTL),
    ]);
    const outcomes = [one?.outcome, two?.outcome].sort();
    expect(outcomes).toEqual(['kept', 'recorded']);
    const published = [one, two].map((p) => (p && 'result' in p ? p.result.output : undefined));
    expect(published[0]).toBe(published[1]);
  });

  it("writes nothing over another command's claim", async () => {
    const key = freshKey();
    await store.ledgerClaim('acme', key, claimant('cmd-a'), TTL);
    expect(await store.ledgerPut('acme', key, claimant('cmd-b'), result('cmd-b'), TTL)).toEqual({
      outcome: 'foreign',
      token: 'cmd-a',
    });
    expect(await store.ledgerGet('acme', key)).toMatchObject({ state: 'running', token: 'cmd-a' });
  });

  it('reports a result the worker did not write as a fault that retrying cannot fix', async () => {
    const key = freshKey();
    await admin.hset(
      layout.ledger('acme', key),
      'state',
      'done',
      'token',
      'cmd-a',
      'digest',
      'd1',
      'tool',
      't',
      'claimedAt',
      'x',
      'result',
      '{"not":"a result"}',
    );
    await expect(store.ledgerGet('acme', key)).rejects.toMatchObject({
      code: 'store_corrupt',
      retriable: false,
    });
  });
});
