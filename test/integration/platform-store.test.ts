/**
 * The Redis store against the real Redis: every operation of the gate's stores (idempotency
 * records, pending commands, confirmations, counters) and of the object store, the races they
 * exist to settle (claims, takes, sweeps), and the connection failing fast while Redis cannot be
 * reached. Every key lives under this file's namespace, dropped afterwards. An independent ioredis
 * connection as the stack's admin (`admin`) looks at TTLs, plants foreign data and kills the
 * store's connection.
 */
import { randomUUID } from 'node:crypto';
import net from 'node:net';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  connectRedis,
  createGateStore,
  createRedisObjectStore,
  Fault,
  MIN_RECORD_TTL_SECONDS,
  type CallCounters,
  type Confirmations,
  type GateStoreOptions,
  type IdempotencyRecords,
  type PendingCommand,
  type PendingCommands,
  type PendingPosition,
  type RedisConnection,
  type RedisConnectionOptions,
  RATE_WINDOW_KEPT_SECONDS,
} from '@toolgate/platform';
import type { IdempotencyRecord, PendingConfirmation, ResolvedObject } from '@toolgate/shared';
import { eventually } from '../support/deadline.js';
import { dropNamespace, testNamespace } from '../support/namespace.js';
import { pendingCommand } from '../support/pending-command.js';
import { redisClient, stackAddresses } from '../support/stack.js';
import { storedPending } from '../support/pending-confirmation.js';

const ns = testNamespace('platform-store');
const prefix = ns.redisPrefix;
const RETENTION = MIN_RECORD_TTL_SECONDS;

/** The gate's stores on one connection, flat, and the connection they share. */
type Stores = IdempotencyRecords &
  PendingCommands &
  Confirmations &
  CallCounters &
  Pick<RedisConnection, 'keys' | 'ping' | 'close'> & { readonly conn: RedisConnection };

const opened: RedisConnection[] = [];
let admin: Redis;
let store: Stores;

/** A connection of its own under the file's prefix, as the gate's Redis user by default. */
function connect(options: Partial<RedisConnectionOptions> = {}): RedisConnection {
  const conn = connectRedis({
    url: stackAddresses().redisUrl,
    prefix,
    connectionName: `tgtest-store-${randomUUID()}`,
    ...options,
  });
  opened.push(conn);
  return conn;
}

/** The gate's stores on `conn` (default a connection of their own). */
function storesOn(conn = connect(), options: GateStoreOptions = {}): Stores {
  const { idempotency, pendingCommands, confirmations, counters } = createGateStore(conn, options);
  return {
    ...idempotency,
    ...pendingCommands,
    ...confirmations,
    ...counters,
    keys: conn.keys,
    ping: () => conn.ping(),
    close: () => conn.close(),
    conn,
  };
}

/** Several independent connections, so concurrent calls really race inside Redis. */
const racers = (n: number) => Array.from({ length: n }, () => storesOn());

beforeAll(async () => {
  admin = redisClient();
  store = storesOn();
  await store.ping();
});

afterAll(async () => {
  await Promise.all(opened.map((conn) => conn.close()));
  await dropNamespace(ns, { redis: admin });
  admin.disconnect();
});

/** Resolves once `probe` resolves, failing with `what` after 10 s. */
const answers = (what: string, probe: () => Promise<unknown>) =>
  eventually(10_000, what, () =>
    probe().then(
      () => true,
      () => false,
    ),
  );

async function faultOf(promise: Promise<unknown>): Promise<Fault> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof Fault) return error;
    throw error;
  }
  throw new Error('expected a Fault, got a value');
}

const uid = () => randomUUID().slice(0, 8);

/** A fresh proposal of acme's alice to count, now. */
const counted = () => ({
  tenant: 'acme',
  subject: 'alice',
  runId: `run-${uid()}`,
  token: `0:${uid()}`,
  second: Math.floor(Date.now() / 1000),
  chain: null,
  step: 'keep' as const,
  keep: 50,
});
const winners = (results: readonly unknown[]) =>
  results.filter((r) => r !== undefined && r !== false);

describe('idempotency records', () => {
  const claimed = (token: string): IdempotencyRecord => ({ digest: 'd1', state: 'claimed', token });
  /** Claims `key` of `tenant` as execute does: the record with a pending command of its own. */
  const claim = (tenant: string, key: string, record: IdempotencyRecord, ttlSeconds = RETENTION) =>
    store.claimWithPending({
      tenant,
      key,
      record,
      ttlSeconds,
      pending: pendingCommand(`cmd-${uid()}`, 1_800_000_000_000),
      deadlineMs: 1_800_000_000_000,
    });

  it('finds no record under a key nobody claimed', async () => {
    expect(await store.getRecord('acme', `k-${uid()}`)).toBeUndefined();
  });

  it('claims a key once and keeps the record for the retention it was given', async () => {
    const key = `k-${uid()}`;
    expect(await claim('acme', key, claimed('p-1'))).toEqual({ claimed: true });
    expect(await claim('acme', key, claimed('p-2'))).toEqual({
      claimed: false,
      record: claimed('p-1'),
    });
    expect(await store.getRecord('acme', key)).toEqual(claimed('p-1'));
    const ttl = await admin.ttl(store.keys.idempotency('acme', key));
    expect(ttl).toBeGreaterThan(RETENTION - 5);
    expect(ttl).toBeLessThanOrEqual(RETENTION);
  });

  it('keeps tenants apart: the same key of another tenant is another record', async () => {
    const key = `k-${uid()}`;
    await claim('acme', key, claimed('p-1'));
    expect(await store.getRecord('globex', key)).toBeUndefined();
    expect(await claim('globex', key, claimed('p-9'))).toEqual({ claimed: true });
  });

  it('overwrites a record with putRecord and renews its retention', async () => {
    const key = `k-${uid()}`;
    await store.putRecord('acme', key, claimed('p-1'), RETENTION);
    const done: IdempotencyRecord = {
      ...claimed('p-1'),
      state: 'done',
      commandId: 'cmd-1',
      outcome: { outcome: 'result', observation: { message: 'ok' } },
    };
    await store.putRecord('acme', key, done, 2 * RETENTION);
    expect(await store.getRecord('acme', key)).toEqual(done);
    expect(await admin.ttl(store.keys.idempotency('acme', key))).toBeGreaterThan(RETENTION);
  });

  it('refuses a retention below 24 hours before writing anything', async () => {
    const key = `k-${uid()}`;
    await expect(claim('acme', key, claimed('p'), RETENTION - 1)).rejects.toThrow(RangeError);
    await expect(store.putRecord('acme', key, claimed('p'), RETENTION - 1)).rejects.toThrow(
      RangeError,
    );
    expect(await admin.exists(store.keys.idempotency('acme', key))).toBe(0);
  });

  it('settles a claim once when a result and the deadline sweeper race', async () => {
    const key = `k-${uid()}`;
    await store.putRecord('acme', key, claimed('p-1'), RETENTION);
    const [a, b] = racers(2);
    const outcomes = await Promise.all([
      a!.settleRecord('acme', key, { ...claimed('p-1'), state: 'done' }, RETENTION, 'results@0:1'),
      b!.settleRecord('acme', key, { ...claimed('p-1'), state: 'unknown' }, RETENTION, 'sweep'),
    ]);
    expect(outcomes.filter((o) => o.settled)).toHaveLength(1);
    const loser = outcomes.find((o) => !o.settled);
    expect(loser?.previous?.state).not.toBe('claimed');
    const winner = outcomes.findIndex((o) => o.settled);
    expect((await store.getRecord('acme', key))?.state).toBe(winner === 0 ? 'done' : 'unknown');
  });

  it('tells the same settler it settled when it asks again, and any other settler it did not', async () => {
    const key = `k-${uid()}`;
    await store.putRecord('acme', key, claimed('p-1'), RETENTION);
    const done: IdempotencyRecord = { ...claimed('p-1'), state: 'done', commandId: 'cmd-1' };
    expect(await store.settleRecord('acme', key, done, RETENTION, 'results@0:7')).toEqual({
      settled: true,
      previous: claimed('p-1'),
    });
    expect(await store.settleRecord('acme', key, done, RETENTION, 'results@0:7')).toEqual({
      settled: true,
      previous: done,
    });
    const unknown: IdempotencyRecord = { ...claimed('p-1'), state: 'unknown' };
    expect(await store.settleRecord('acme', key, unknown, RETENTION, 'sweep:cmd-1')).toEqual({
      settled: false,
      previous: done,
    });
    expect(await store.getRecord('acme', key)).toEqual(done);
  });

  it('does not settle a claim made under another token, nor a missing record', async () => {
    const key = `k-${uid()}`;
    await store.putRecord('acme', key, claimed('theirs'), RETENTION);
    const mine = { ...claimed('mine'), state: 'done' } as const;
    expect(await store.settleRecord('acme', key, mine, RETENTION, 'results@0:1')).toEqual({
      settled: false,
      previous: claimed('theirs'),
    });
    expect(await store.settleRecord('acme', `k-${uid()}`, mine, RETENTION, 'r')).toEqual({
      settled: false,
      previous: undefined,
    });
  });

  it('reports a value the gate did not write as a fault that retrying cannot fix', async () => {
    const key = `k-${uid()}`;
    await admin.set(store.keys.idempotency('acme', key), '{"digest":1}');
    const fault = await faultOf(store.getRecord('acme', key));
    expect(fault).toMatchObject({ code: 'store_corrupt', retriable: false });
  });

  it('reports a key of the wrong type as a redis_error that retrying cannot fix', async () => {
    const key = `k-${uid()}`;
    await admin.lpush(store.keys.idempotency('acme', key), 'x');
    const fault = await faultOf(store.getRecord('acme', key));
    expect(fault).toMatchObject({ code: 'redis_error', retriable: false });
  });
});

describe('pending commands', () => {
  const NOW = 1_800_000_000_000;
  const pending = (commandId: string) => pendingCommand(commandId, NOW);
  const deadlineOf = (id: string) => admin.zscore(store.keys.deadlinesOf(id), id);

  it('gives a pending command to exactly one of ten concurrent takers, then forgets it', async () => {
    const id = `cmd-${uid()}`;
    await store.putPendingCommand(pending(id), NOW);
    expect(await deadlineOf(id)).toBe(String(NOW));
    const taken = await Promise.all(
      racers(10).map((s, i) => s.takePendingCommand(id, `result-${i}`)),
    );
    expect(winners(taken)).toEqual([pending(id)]);
    expect(await deadlineOf(id)).toBeNull();
    expect(await store.takePendingCommand(id, 'another result')).toBeUndefined();
  });

  it('gives a taken command to the same taker again after a lost reply, and to nobody else', async () => {
    const id = `cmd-${uid()}`;
    await store.putPendingCommand(pending(id), NOW);
    expect(await store.takePendingCommand(id, 'results@0:17')).toEqual(pending(id));
    expect(await store.takePendingCommand(id, 'results@0:17')).toEqual(pending(id));
    expect(await store.takePendingCommand(id, 'results@1:4')).toBeUndefined();
    const linger = await admin.pttl(store.keys.pendingCommand(id));
    expect(linger).toBeGreaterThan(0);
    expect(linger).toBeLessThanOrEqual(60 * 60 * 1000);
  });

  it('shows a pending command to a peek, taken or not, without taking it', async () => {
    const id = `cmd-${uid()}`;
    expect(await store.peekPendingCommand(id)).toBeUndefined();
    const issued = { ...pending(id), issuedAt: new Date(NOW - 1000).toISOString() };
    await store.putPendingCommand(issued, NOW);
    expect(await store.peekPendingCommand(id)).toEqual(issued);
    expect(await deadlineOf(id)).toBe(String(NOW));
    expect(await store.takePendingCommand(id, 'result')).toEqual(issued);
    expect(await store.peekPendingCommand(id)).toEqual(issued);
    expect(await store.takePendingCommand(id, 'another result')).toBeUndefined();
  });

  it('claims a free key together with its pending command, in one step', async () => {
    const id = `cmd-${uid()}`;
    const record: IdempotencyRecord = { digest: 'd1', state: 'claimed', token: `p-${id}` };
    const key = `key-${id}`;
    const claim = { tenant: 'acme', key, record, ttlSeconds: RETENTION, deadlineMs: NOW };
    expect(await store.claimWithPending({ ...claim, pending: pending(id) })).toEqual({
      claimed: true,
    });
    expect(await store.getRecord('acme', key)).toEqual(record);
    expect(await store.peekPendingCommand(id)).toEqual(pending(id));
    expect(await deadlineOf(id)).toBe(String(NOW));
    const ttl = await admin.ttl(store.keys.idempotency('acme', key));
    expect(ttl).toBeGreaterThan(RETENTION - 5);
  });

  it('answers the holder of a taken key, and stores no pending command for the loser', async () => {
    const [first, second] = [`cmd-${uid()}`, `cmd-${uid()}`];
    const key = `key-${first}`;
    const holder: IdempotencyRecord = { digest: 'd1', state: 'claimed', token: 'p-1' };
    await store.putRecord('acme', key, holder, RETENTION);
    const loser: IdempotencyRecord = { digest: 'd2', state: 'claimed', token: 'p-2' };
    const claim = { tenant: 'acme', key, record: loser, ttlSeconds: RETENTION, deadlineMs: NOW };
    expect(await store.claimWithPending({ ...claim, pending: pending(second) })).toEqual({
      claimed: false,
      record: holder,
    });
    expect(await store.getRecord('acme', key)).toEqual(holder);
    expect(await store.peekPendingCommand(second)).toBeUndefined();
    expect(await deadlineOf(second)).toBeNull();
  });

  it('lets exactly one of ten concurrent claims with pending commands win', async () => {
    const key = `key-${uid()}`;
    const ids = Array.from({ length: 10 }, () => `cmd-${uid()}`);
    const outcomes = await Promise.all(
      racers(10).map((s, i) =>
        s.claimWithPending({
          tenant: 'acme',
          key,
          record: { digest: 'd1', state: 'claimed', token: `p-${i}` },
          ttlSeconds: RETENTION,
          pending: pending(ids[i] ?? ''),
          deadlineMs: NOW,
        }),
      ),
    );
    const won = outcomes.flatMap((o, i) => (o.claimed ? [i] : []));
    expect(won).toHaveLength(1);
    const stored = await Promise.all(ids.map((id) => store.peekPendingCommand(id)));
    expect(stored.filter((p) => p !== undefined).map((p) => p?.commandId)).toEqual([
      ids[won[0] ?? -1],
    ]);
  });

  it('claims only commands past their deadline, and hides them for the lease', async () => {
    const [due, later] = [`cmd-${uid()}`, `cmd-${uid()}`];
    await store.putPendingCommand(pending(due), NOW - 10);
    await store.putPendingCommand(pending(later), NOW + 60_000);
    const claimed = (await store.claimExpiredCommands(NOW, 1000, 1000)).claimed;
    expect(claimed.map((p) => p.commandId)).toContain(due);
    expect(claimed.map((p) => p.commandId)).not.toContain(later);
    const again = (await store.claimExpiredCommands(NOW + 999, 1000, 1000)).claimed;
    expect(again.map((p) => p.commandId)).not.toContain(due);
  });

  it('claims an unfinished command again once its lease has run out', async () => {
    const id = `cmd-${uid()}`;
    await store.putPendingCommand(pending(id), NOW - 10);
    expect(
      (await store.claimExpiredCommands(NOW, 1000, 1000)).claimed.map((p) => p.commandId),
    ).toContain(id);
    const redelivered = (await store.claimExpiredCommands(NOW + 1000, 1000, 1000)).claimed;
    expect(redelivered).toContainEqual(pending(id));
    expect(await store.finishExpiredCommand(id)).toBe(true);
    const afterFinish = (await store.claimExpiredCommands(NOW + 10_000, 1000, 1000)).claimed;
    expect(afterFinish.map((p) => p.commandId)).not.toContain(id);
    expect(await admin.exists(store.keys.pendingCommand(id))).toBe(0);
  });

  it('keeps a finished command for a late result when asked to', async () => {
    const id = `cmd-${uid()}`;
    await store.putPendingCommand(pending(id), NOW - 10);
    await store.claimExpiredCommands(NOW, 1000, 1000);
    expect(await store.finishExpiredCommand(id, { retainMs: 60_000 })).toBe(true);
    expect(await admin.pttl(store.keys.pendingCommand(id))).toBeLessThanOrEqual(60_000);
    expect(await store.takePendingCommand(id, 'result')).toEqual(pending(id));
  });

  it('does not sweep a command whose result took it before any sweep claimed it', async () => {
    const id = `cmd-${uid()}`;
    await store.putPendingCommand(pending(id), NOW - 10);
    expect(await store.takePendingCommand(id, 'result')).toEqual(pending(id));
    const later = (await store.claimExpiredCommands(NOW + 5000, 1000, 1000)).claimed;
    expect(later.map((p) => p.commandId)).not.toContain(id);
    expect(await deadlineOf(id)).toBeNull();
    expect(await store.finishExpiredCommand(id)).toBe(false);
  });

  it('claims a swept command again after its lease though a result took it meanwhile', async () => {
    // The sweep may have settled the record as unknown and failed before publishing: it still
    // owes the terminal observation, so the result's take leaves its entry to the sweeper.
    const id = `cmd-${uid()}`;
    await store.putPendingCommand(pending(id), NOW - 10);
    await store.claimExpiredCommands(NOW, 1000, 1000);
    expect(await store.takePendingCommand(id, 'result')).toEqual(pending(id));
    const hidden = (await store.claimExpiredCommands(NOW + 999, 1000, 1000)).claimed;
    expect(hidden.map((p) => p.commandId)).not.toContain(id);
    const again = (await store.claimExpiredCommands(NOW + 1000, 1000, 1000)).claimed;
    expect(again).toContainEqual(pending(id));
    expect(await store.finishExpiredCommand(id)).toBe(true);
    const afterFinish = (await store.claimExpiredCommands(NOW + 10_000, 1000, 1000)).claimed;
    expect(afterFinish.map((p) => p.commandId)).not.toContain(id);
    // The result's take stands: the same taker still gets the command, nobody else does.
    expect(await store.takePendingCommand(id, 'result')).toEqual(pending(id));
    expect(await store.takePendingCommand(id, 'another result')).toBeUndefined();
  });

  it("keeps a swept command the sweep has not finished past a result's take linger", async () => {
    // The result that takes a swept command leaves the terminal observation to the sweep; its
    // short linger must not end the entry the sweep still owes that observation for (a sweep that
    // keeps failing to publish for longer would find it gone and drop it without a word).
    const id = `cmd-${uid()}`;
    const lingerMs = 1000;
    const lingering = storesOn(connect(), { takeLingerMs: lingerMs });
    await store.putPendingCommand(pending(id), NOW - 10);
    await store.claimExpiredCommands(NOW, 1000, 1000);
    expect(await lingering.takePendingCommand(id, 'result')).toEqual(pending(id));
    expect(await admin.pttl(store.keys.pendingCommand(id))).toBeGreaterThan(lingerMs);
    const again = (await store.claimExpiredCommands(NOW + 1000, 1000, 1000)).claimed;
    expect(again).toContainEqual(pending(id));
    // Finished, it keeps the taker's linger at least, and no longer than asked.
    expect(await lingering.finishExpiredCommand(id, { retainMs: 60_000 })).toBe(true);
    const kept = await admin.pttl(store.keys.pendingCommand(id));
    expect(kept).toBeGreaterThan(lingerMs);
    expect(kept).toBeLessThanOrEqual(60_000);
    expect(await lingering.takePendingCommand(id, 'result')).toEqual(pending(id));
  });

  it('keeps a taken command for its taker when the sweep finishes it without retaining', async () => {
    const id = `cmd-${uid()}`;
    await store.putPendingCommand(pending(id), NOW - 10);
    await store.claimExpiredCommands(NOW, 1000, 1000);
    expect(await store.takePendingCommand(id, 'result')).toEqual(pending(id));
    expect(await store.finishExpiredCommand(id)).toBe(true);
    const kept = await admin.pttl(store.keys.pendingCommand(id));
    expect(kept).toBeGreaterThan(0);
    expect(kept).toBeLessThanOrEqual(60 * 60 * 1000);
  });

  it('keeps the settler mark on a record put with it, so that settler still settles', async () => {
    const key = `k-${uid()}`;
    const claimed: IdempotencyRecord = { digest: 'd1', state: 'claimed', token: 'p-1' };
    await store.putRecord('acme', key, claimed, RETENTION);
    const unknown: IdempotencyRecord = { ...claimed, state: 'unknown' };
    expect((await store.settleRecord('acme', key, unknown, RETENTION, 'sweep:c1')).settled).toBe(
      true,
    );
    const done: IdempotencyRecord = { ...claimed, state: 'done' };
    await store.putRecord('acme', key, done, RETENTION, 'sweep:c1');
    expect(await store.getRecord('acme', key)).toEqual(done);
    const again = await store.settleRecord('acme', key, unknown, RETENTION, 'sweep:c1');
    expect(again).toEqual({ settled: true, previous: done });
    expect(await store.getRecord('acme', key)).toEqual(done);
    const other = await store.settleRecord('acme', key, unknown, RETENTION, 'results@0:1');
    expect(other.settled).toBe(false);
  });

  it('drops an index entry whose command is gone instead of claiming it forever', async () => {
    const id = `cmd-${uid()}`;
    await admin.zadd(store.keys.deadlinesOf(id), NOW - 10, id);
    const claimed = (await store.claimExpiredCommands(NOW, 1000, 1000)).claimed;
    expect(claimed.map((p) => p.commandId)).not.toContain(id);
    expect(await deadlineOf(id)).toBeNull();
  });

  it('reports a command it cannot read, drops it from the index, and claims the rest of its batch', async () => {
    // A pending command written in another shape (a rolling upgrade) or damaged: before, it failed
    // every sweep it was claimed in, after every lease, and the commands beside it were never ended.
    const [bad, good] = [`cmd-${uid()}`, `cmd-${uid()}`];
    await store.putPendingCommand(pending(good), NOW - 10);
    await admin.hset(store.keys.pendingCommand(bad), 'json', '{"commandId":"not this shape"}');
    await admin.zadd(store.keys.deadlinesOf(bad), NOW - 20, bad);
    const claim = await store.claimExpiredCommands(NOW, 1000, 1000);
    expect(claim.claimed).toContainEqual(pending(good));
    const unreadable = claim.unreadable.find((u) => u.member === bad);
    expect(unreadable?.problem).toMatch(/pending command/);
    expect(await deadlineOf(bad)).toBeNull();
    expect(await deadlineOf(good)).toBe(String(NOW + 1000));
    // Its JSON stays for a person to read until its TTL.
    expect(await admin.hget(store.keys.pendingCommand(bad), 'json')).toContain('not this shape');
    await admin.del(store.keys.pendingCommand(bad));
  });

  describe('taken and settled in one step', () => {
    const claimOf = (p: PendingCommand): IdempotencyRecord => ({
      digest: p.digest,
      state: 'claimed',
      token: p.token,
      commandId: p.commandId,
    });
    const doneOf = (p: PendingCommand): IdempotencyRecord => ({ ...claimOf(p), state: 'done' });
    /** A command issued as execute issues it: claim and pending command together. */
    const issue = async (id: string) => {
      const p = pending(id);
      await store.claimWithPending({
        tenant: 'acme',
        key: p.idempotencyKey,
        record: claimOf(p),
        ttlSeconds: RETENTION,
        pending: p,
        deadlineMs: NOW,
      });
      return p;
    };
    const takeAndSettle = (s: Stores, p: PendingCommand, token: string, record = doneOf(p)) =>
      s.takeAndSettle({
        expected: p,
        takerToken: token,
        record,
        ttlSeconds: RETENTION,
        settlerToken: token,
      });

    it('takes the command and settles its record when Redis holds the same copy', async () => {
      const p = await issue(`cmd-${uid()}`);
      expect(await takeAndSettle(store, p, 'results@0:3')).toEqual({
        outcome: 'taken',
        settled: true,
        previous: claimOf(p),
      });
      expect(await store.getRecord('acme', p.idempotencyKey)).toEqual(doneOf(p));
      expect(await deadlineOf(p.commandId)).toBeNull();
      expect(await store.takePendingCommand(p.commandId, 'results@0:4')).toBeUndefined();
      // The same taker again (a lost reply, a redelivery): taken, and told it settled.
      expect(await takeAndSettle(store, p, 'results@0:3')).toEqual({
        outcome: 'taken',
        settled: true,
        previous: doneOf(p),
      });
      expect(await store.takePendingCommand(p.commandId, 'results@0:3')).toEqual(p);
    });

    it('does nothing when Redis holds another copy, so the two steps can still take it', async () => {
      const p = await issue(`cmd-${uid()}`);
      const stale = { ...p, deadline: new Date(NOW + 1).toISOString() };
      expect(await takeAndSettle(store, stale, 'results@0:5')).toEqual({ outcome: 'changed' });
      expect(await store.getRecord('acme', p.idempotencyKey)).toEqual(claimOf(p));
      expect(await deadlineOf(p.commandId)).toBe(String(NOW));
      expect(await store.takePendingCommand(p.commandId, 'results@0:5')).toEqual(p);
    });

    it('does nothing when the record is not one the gate wrote, so the sweep still ends the call', async () => {
      const p = await issue(`cmd-${uid()}`);
      const record = store.keys.idempotency('acme', p.idempotencyKey);
      await admin.set(record, '{"state":"claimed"}', 'EX', RETENTION);
      const fault = await faultOf(takeAndSettle(store, p, 'results@0:6'));
      expect(fault.code).toBe('store_corrupt');
      expect(fault.retriable).toBe(false);
      expect(await deadlineOf(p.commandId)).toBe(String(NOW));
      expect(await admin.hget(store.keys.pendingCommand(p.commandId), 'takenBy')).toBeNull();
      expect(await admin.get(record)).toBe('{"state":"claimed"}');
    });

    it('answers unmatched for a command another result took, or one that is gone', async () => {
      const p = await issue(`cmd-${uid()}`);
      expect(await store.takePendingCommand(p.commandId, 'results@1:1')).toEqual(p);
      expect(await takeAndSettle(store, p, 'results@1:2')).toEqual({ outcome: 'unmatched' });
      expect(await store.getRecord('acme', p.idempotencyKey)).toEqual(claimOf(p));
      const gone = pending(`cmd-${uid()}`);
      expect(await takeAndSettle(store, gone, 'results@1:3')).toEqual({ outcome: 'unmatched' });
      expect(await store.getRecord('acme', gone.idempotencyKey)).toBeUndefined();
    });

    it('takes a swept command without settling it, and shows the sweep', async () => {
      const p = await issue(`cmd-${uid()}`);
      expect((await store.claimExpiredCommands(NOW, 1000, 1000)).claimed).toContainEqual(p);
      const unknown: IdempotencyRecord = { ...claimOf(p), state: 'unknown' };
      const sweep = `sweep:${p.commandId}`;
      await store.settleRecord('acme', p.idempotencyKey, unknown, RETENTION, sweep);
      await store.finishExpiredCommand(p.commandId, { retainMs: 60_000 });
      expect(await takeAndSettle(store, p, 'results@2:1')).toEqual({
        outcome: 'taken',
        settled: false,
        previous: unknown,
      });
      expect(await store.getRecord('acme', p.idempotencyKey)).toEqual(unknown);
    });

    it('lets exactly one of a result and the sweeper settle a command when they race', async () => {
      for (let round = 0; round < 5; round += 1) {
        const p = await issue(`cmd-${uid()}`);
        const [a, b] = racers(2);
        const unknown: IdempotencyRecord = { ...claimOf(p), state: 'unknown' };
        const [result, sweep] = await Promise.all([
          takeAndSettle(a!, p, `results@3:${round}`),
          b!.settleRecord('acme', p.idempotencyKey, unknown, RETENTION, `sweep:${p.commandId}`),
        ]);
        expect(result.outcome).toBe('taken');
        const resultSettled = result.outcome === 'taken' && result.settled;
        expect([resultSettled, sweep.settled].filter(Boolean)).toHaveLength(1);
        const state = (await store.getRecord('acme', p.idempotencyKey))?.state;
        expect(state).toBe(resultSettled ? 'done' : 'unknown');
      }
    });

    it('refuses a retention below 24 hours before writing anything', async () => {
      const p = await issue(`cmd-${uid()}`);
      const short = store.takeAndSettle({
        expected: p,
        takerToken: 'results@4:1',
        record: doneOf(p),
        ttlSeconds: RETENTION - 1,
        settlerToken: 'results@4:1',
      });
      await expect(short).rejects.toThrow(RangeError);
      expect(await store.takePendingCommand(p.commandId, 'results@4:2')).toEqual(p);
    });
  });

  it('claims no more than the limit at once', async () => {
    const ids = [uid(), uid(), uid()].map((u) => `cmd-${u}`);
    for (const id of ids) await store.putPendingCommand(pending(id), 1000);
    expect((await store.claimExpiredCommands(1000, 1000, 2)).claimed).toHaveLength(2);
  });
});

describe('pending confirmations', () => {
  const NOW = Date.parse('2030-01-01T00:00:00Z');
  const TTL = 30 * 60 * 1000;
  const PARKER = 'authorized@1:7';
  // The waiting confirmations of a window from the start, expired ones included.
  const waitingIn = async (tenant: string, size: number) =>
    (await store.listPending(tenant, { expiredUpToMs: 0, size })).entries.flatMap((e) =>
      e.pending === undefined ? [] : [e.pending],
    );
  const pending = (id: string, tenant = 'acme', expiresInMs = TTL): PendingConfirmation =>
    storedPending(id, tenant, NOW, expiresInMs);

  it('parks a confirmation once; a redelivery gets the stored one back, another message what stands', async () => {
    const id = `conf-${uid()}`;
    expect(await store.parkConfirmation(pending(id), TTL, PARKER)).toEqual({
      publish: pending(id),
    });
    const later = { ...pending(id), expiresAt: new Date(NOW + 2 * TTL).toISOString() };
    expect(await store.parkConfirmation(later, TTL, PARKER)).toEqual({ publish: pending(id) });
    expect(await store.parkConfirmation(later, TTL, 'authorized@1:8')).toEqual({
      standing: pending(id),
    });
    expect(await store.readConfirmation('acme', id)).toEqual({
      pending: pending(id),
      state: 'waiting',
    });
  });

  it('refuses to park over a confirmation it cannot read, rather than answer nothing', async () => {
    const id = `conf-${uid()}`;
    await store.parkConfirmation(pending(id), TTL, PARKER);
    await admin.hdel(store.keys.confirmation('acme', id), 'json');
    await expect(store.parkConfirmation(pending(id), TTL, 'authorized@1:9')).rejects.toMatchObject({
      code: 'store_corrupt',
      retriable: false,
    });
  });

  it('reads a confirmation in every state, and none of another tenant', async () => {
    const id = `conf-${uid()}`;
    expect(await store.readConfirmation('acme', id)).toBeUndefined();
    await store.parkConfirmation(pending(id), TTL, PARKER);
    await store.takeConfirmation('acme', id, 'approval');
    expect(await store.readConfirmation('acme', id)).toEqual({
      pending: pending(id),
      state: 'taken',
    });
    expect(await store.readConfirmation('globex', id)).toBeUndefined();
  });

  it('keeps the JSON past the expiry for the sweeper, and scores both indexes by expiry', async () => {
    const id = `conf-${uid()}`;
    await store.parkConfirmation(pending(id), TTL, PARKER);
    const pttl = await admin.pttl(store.keys.confirmation('acme', id));
    expect(pttl).toBeGreaterThan(TTL + 60 * 60 * 1000);
    const expiry = String(NOW + TTL);
    expect(await admin.zscore(store.keys.confirmationsByTenant('acme'), id)).toBe(expiry);
    const member = store.keys.confirmationMember('acme', id);
    expect(await admin.zscore(store.keys.confirmationExpiry('acme'), member)).toBe(expiry);
  });

  it('gives a confirmation to exactly one of ten concurrent approvals', async () => {
    const id = `conf-${uid()}`;
    await store.parkConfirmation(pending(id), TTL, PARKER);
    const taken = await Promise.all(
      racers(10).map((s, i) => s.takeConfirmation('acme', id, `approval-${i}`)),
    );
    expect(winners(taken)).toEqual([pending(id)]);
  });

  it('gives a taken confirmation to the same approval again after a lost reply, and to no other', async () => {
    const id = `conf-${uid()}`;
    await store.parkConfirmation(pending(id), TTL, PARKER);
    expect(await store.takeConfirmation('acme', id, 'approvals@2:9')).toEqual(pending(id));
    expect(await store.takeConfirmation('acme', id, 'approvals@2:9')).toEqual(pending(id));
    expect(await store.takeConfirmation('acme', id, 'approvals@2:10')).toBeUndefined();
    expect((await store.readConfirmation('acme', id))?.state).toBe('taken');
  });

  it('does not park a decided confirmation again when its message is redelivered', async () => {
    const id = `conf-${uid()}`;
    await store.parkConfirmation(pending(id), TTL, PARKER);
    await store.takeConfirmation('acme', id, 'approval');
    expect(await store.parkConfirmation(pending(id), TTL, PARKER)).toEqual({
      standing: pending(id),
    });
    expect((await store.readConfirmation('acme', id))?.state).toBe('taken');
    expect(await store.takeConfirmation('acme', id, 'other approval')).toBeUndefined();
    expect(await admin.pttl(store.keys.confirmation('acme', id))).toBeGreaterThan(0);
  });

  it("hides a tenant's confirmation from every other tenant", async () => {
    const id = `conf-${uid()}`;
    await store.parkConfirmation(pending(id), TTL, PARKER);
    expect(await store.readConfirmation('globex', id)).toBeUndefined();
    expect(await store.takeConfirmation('globex', id, 'approval')).toBeUndefined();
    expect(await waitingIn('globex', 100)).not.toContainEqual(pending(id));
    expect(await store.takeConfirmation('acme', id, 'approval')).toEqual(pending(id));
  });

  it("lists a tenant's waiting confirmations, soonest expiry first, up to the limit", async () => {
    const tenant = `t-${uid()}`;
    const [late, soon, gone] = [uid(), uid(), uid()];
    await store.parkConfirmation(pending(late, tenant, TTL), TTL, PARKER);
    await store.parkConfirmation(pending(soon, tenant, 1000), 1000, PARKER);
    await store.parkConfirmation(pending(gone, tenant, 2000), 2000, PARKER);
    await store.takeConfirmation(tenant, gone, 'approval');
    const listed = await waitingIn(tenant, 100);
    expect(listed.map((p) => p.confirmationId)).toEqual([soon, late]);
    expect(await waitingIn(tenant, 1)).toEqual([pending(soon, tenant, 1000)]);
    expect(await store.listPending(`t-${uid()}`, { expiredUpToMs: 0, size: 10 })).toEqual({
      entries: [],
      more: false,
    });
  });

  it('pages through confirmations that share an expiry, from a position that was taken meanwhile, none repeated or skipped', async () => {
    const tenant = `t-${uid()}`;
    // Twelve share one expiry (parked in the same millisecond), two expire later, one has expired.
    const tied = Array.from(
      { length: 12 },
      (_, i) => `conf-${String(i).padStart(2, '0')}-${uid()}`,
    );
    for (const id of tied) await store.parkConfirmation(pending(id, tenant, 5000), TTL, PARKER);
    const later = [`conf-a-${uid()}`, `conf-b-${uid()}`];
    for (const id of later) await store.parkConfirmation(pending(id, tenant, 9000), TTL, PARKER);
    const expired = `conf-x-${uid()}`;
    await store.parkConfirmation(pending(expired, tenant, -1), TTL, PARKER);

    const seen: string[] = [];
    let after: PendingPosition | undefined;
    for (let pages = 0; pages < 20; pages += 1) {
      const window = await store.listPending(tenant, {
        ...(after === undefined ? {} : { after }),
        expiredUpToMs: NOW,
        size: 5,
      });
      seen.push(...window.entries.map((e) => e.position.confirmationId));
      after = window.entries.at(-1)?.position ?? after;
      // The last entry of the first window is decided before the next window is asked for.
      if (pages === 0) await store.takeConfirmation(tenant, after!.confirmationId, 'approval');
      if (!window.more) break;
    }
    expect(seen).toEqual([...[...tied].sort(), ...later]);
    expect(seen).not.toContain(expired);
  });

  it("lists the rest of a tenant's waiting confirmations when one of them cannot be read", async () => {
    const tenant = `t-${uid()}`;
    const [bad, good] = [`conf-${uid()}`, `conf-${uid()}`];
    await store.parkConfirmation(pending(bad, tenant, 1000), 1000, PARKER);
    await store.parkConfirmation(pending(good, tenant), TTL, PARKER);
    await admin.hset(store.keys.confirmation(tenant, bad), 'json', 'not json at all');
    expect((await waitingIn(tenant, 10)).map((p) => p.confirmationId)).toEqual([good]);
  });

  it('sweeps only expired confirmations, which no approval can take any more', async () => {
    const [expired, waiting] = [`conf-${uid()}`, `conf-${uid()}`];
    await store.parkConfirmation(pending(expired, 'acme', -1), 1, PARKER);
    await store.parkConfirmation(pending(waiting), TTL, PARKER);
    const claimed = (await store.claimExpiredConfirmations(NOW, 1000, 1000)).claimed;
    expect(claimed).toContainEqual(pending(expired, 'acme', -1));
    expect(claimed.map((p) => p.confirmationId)).not.toContain(waiting);
    expect(await store.takeConfirmation('acme', expired, 'approval')).toBeUndefined();
    expect((await waitingIn('acme', 1000)).map((p) => p.confirmationId)).not.toContain(expired);
  });

  it('sweeps an unfinished confirmation again once its lease has run out, and not after finishing', async () => {
    const id = `conf-${uid()}`;
    await store.parkConfirmation(pending(id, 'acme', -1), 1, PARKER);
    await store.claimExpiredConfirmations(NOW, 1000, 1000);
    const hidden = (await store.claimExpiredConfirmations(NOW + 999, 1000, 1000)).claimed;
    expect(hidden.map((p) => p.confirmationId)).not.toContain(id);
    const redelivered = (await store.claimExpiredConfirmations(NOW + 1000, 1000, 1000)).claimed;
    expect(redelivered.map((p) => p.confirmationId)).toContain(id);
    expect(await store.finishExpiredConfirmation('acme', id)).toBe(true);
    const later = (await store.claimExpiredConfirmations(NOW + 60_000, 1000, 1000)).claimed;
    expect(later.map((p) => p.confirmationId)).not.toContain(id);
    expect(await store.parkConfirmation(pending(id, 'acme', -1), 1, PARKER)).toEqual({
      standing: pending(id, 'acme', -1),
    });
  });

  it('reports a confirmation it cannot read, drops it from the index, and sweeps the rest', async () => {
    const [bad, good] = [`conf-${uid()}`, `conf-${uid()}`];
    await store.parkConfirmation(pending(bad, 'acme', -1), 1, PARKER);
    await store.parkConfirmation(pending(good, 'acme', -1), 1, PARKER);
    await admin.hset(store.keys.confirmation('acme', bad), 'json', 'not json at all');
    const claim = await store.claimExpiredConfirmations(NOW, 1000, 1000);
    expect(claim.claimed).toContainEqual(pending(good, 'acme', -1));
    expect(claim.claimed.map((p) => p.confirmationId)).not.toContain(bad);
    const member = store.keys.confirmationMember('acme', bad);
    expect(claim.unreadable.map((u) => u.member)).toContain(member);
    expect(await admin.zscore(store.keys.confirmationExpiry('acme'), member)).toBeNull();
    const later = await store.claimExpiredConfirmations(NOW + 60_000, 1000, 1000);
    expect(later.unreadable.map((u) => u.member)).not.toContain(member);
  });

  it('drops the tenant index entry of a confirmation that is gone, so it does not crowd the list', async () => {
    const tenant = `t-${uid()}`;
    const [lost, live] = [`conf-${uid()}`, `conf-${uid()}`];
    await store.parkConfirmation(pending(lost, tenant, -1), 1, PARKER);
    await store.parkConfirmation(pending(live, tenant), TTL, PARKER);
    // Its JSON outlived the expiry by the grace and no sweep came meanwhile (the stage was down).
    await admin.del(store.keys.confirmation(tenant, lost));
    const claim = await store.claimExpiredConfirmations(NOW, 1000, 1000);
    expect(claim.claimed.map((p) => p.confirmationId)).not.toContain(lost);
    expect(await admin.zscore(store.keys.confirmationsByTenant(tenant), lost)).toBeNull();
    expect((await waitingIn(tenant, 1)).map((p) => p.confirmationId)).toEqual([live]);
  });

  it('lets either the approval or the sweeper have an expired confirmation, never both', async () => {
    const ids = Array.from({ length: 20 }, () => `conf-${uid()}`);
    for (const id of ids) await store.parkConfirmation(pending(id, 'acme', -1), 1, PARKER);
    const [approver, sweeper] = racers(2);
    const [taken, swept] = await Promise.all([
      Promise.all(ids.map((id) => approver!.takeConfirmation('acme', id, `approval-${id}`))),
      sweeper!.claimExpiredConfirmations(NOW, 60_000, 1000),
    ]);
    for (const [i, id] of ids.entries()) {
      const byApproval = taken[i] !== undefined;
      const bySweeper = swept.claimed.some((p) => p.confirmationId === id);
      expect(byApproval !== bySweeper, `${id}: approval ${byApproval}, sweeper ${bySweeper}`).toBe(
        true,
      );
    }
  });
});

describe('call counters', () => {
  const SECOND = 1_800_000_000;
  const KEEP = 1_000;
  type Counted = Parameters<typeof store.countProposal>[0];
  const proposal = (over: Partial<Counted> = {}): Counted => ({
    tenant: 'acme',
    subject: 'alice',
    runId: `run-${uid()}`,
    token: `0:${uid()}`,
    second: SECOND,
    chain: 'search',
    step: 'reset',
    keep: KEEP,
    ...over,
  });

  it('counts proposals per run, per user-second and per tenant-second, in one step', async () => {
    const [tenant, runId] = [`t-${uid()}`, `run-${uid()}`];
    const count = (over: Partial<Counted>) =>
      store.countProposal(proposal({ tenant, runId, ...over }));
    expect(await count({})).toEqual({
      callsInRun: 1,
      userCallsThisSecond: 1,
      tenantCallsThisSecond: 1,
      repairsBefore: 0,
    });
    expect(await count({ runId: `run-${uid()}`, subject: 'bob' })).toEqual({
      callsInRun: 1,
      userCallsThisSecond: 1,
      tenantCallsThisSecond: 2,
      repairsBefore: 0,
    });
    expect(await count({ second: SECOND + 1 })).toMatchObject({
      callsInRun: 2,
      userCallsThisSecond: 1,
      tenantCallsThisSecond: 1,
    });
    // A second of the past is counted with the other calls of that second, not the latest.
    expect(await count({ runId: `run-${uid()}` })).toMatchObject({
      userCallsThisSecond: 2,
      tenantCallsThisSecond: 3,
    });
    expect(await store.countProposal(proposal({ runId }))).toMatchObject({
      callsInRun: 1,
      tenantCallsThisSecond: 1,
    });
  });

  it('answers a proposal delivered again as the first time, and counts it nowhere again', async () => {
    const [tenant, runId] = [`t-${uid()}`, `run-${uid()}`];
    const first = proposal({ tenant, runId, token: '3:17', step: 'charge' });
    const answer = await store.countProposal(first);
    await store.countProposal(proposal({ tenant, runId, step: 'charge' }));
    expect(await store.countProposal(first)).toEqual(answer);
    expect(await store.countProposal(proposal({ tenant, runId }))).toEqual({
      callsInRun: 3,
      userCallsThisSecond: 3,
      tenantCallsThisSecond: 3,
      repairsBefore: 2,
    });
  });

  it("charges a chain's repairs, resets it with an accepted call, and keeps unknown tools in one chain", async () => {
    const runId = `run-${uid()}`;
    const count = (chain: string | null, step: Counted['step']) =>
      store.countProposal(proposal({ runId, chain, step })).then((c) => c.repairsBefore);
    expect(await count('search', 'charge')).toBe(0);
    expect(await count('search', 'charge')).toBe(1);
    expect(await count('lookup', 'charge')).toBe(0);
    expect(await count(null, 'charge')).toBe(0);
    expect(await count(null, 'charge')).toBe(1);
    expect(await count('search', 'keep')).toBe(2);
    expect(await count('search', 'reset')).toBe(2);
    expect(await count('search', 'charge')).toBe(0);
    expect(await count(null, 'keep')).toBe(0);
    expect(await count('lookup', 'keep')).toBe(1);
  });

  it("lets a run's counts live a day and a minute's rates until the topic can no longer hold its records", async () => {
    const [tenant, runId] = [`t-${uid()}`, `run-${uid()}`];
    const second = Math.floor(Date.now() / 1000);
    await store.countProposal(proposal({ tenant, runId, second, step: 'charge' }));
    for (const key of [
      store.keys.runCalls(tenant, runId),
      store.keys.repairChains(tenant, runId),
    ]) {
      expect(await admin.ttl(key)).toBeGreaterThan(86_000);
    }
    const minute = Math.floor(second / 60);
    for (const key of [
      store.keys.tenantMinute(tenant, minute),
      store.keys.userMinute(tenant, 'alice', minute),
    ]) {
      const ttl = await admin.ttl(key);
      expect(ttl).toBeGreaterThan(RATE_WINDOW_KEPT_SECONDS - 5);
      expect(ttl).toBeLessThanOrEqual(RATE_WINDOW_KEPT_SECONDS + 60);
    }
  });

  it('keeps at most `keep` proposals of a run apart and only counts the ones after them', async () => {
    const [tenant, runId] = [`t-${uid()}`, `run-${uid()}`];
    const count = (token: string, second = SECOND) =>
      store.countProposal(proposal({ tenant, runId, token, second, keep: 3 }));
    for (const [i, token] of ['c1', 'c2', 'c3', 'c4', 'c5'].entries()) {
      expect(await count(token)).toMatchObject({ callsInRun: i + 1, tenantCallsThisSecond: i + 1 });
    }
    expect(await admin.hlen(store.keys.runCalls(tenant, runId))).toBe(3);
    // A kept proposal delivered again is counted in neither; one past them is counted again.
    expect(await count('c2', SECOND + 10)).toMatchObject({ callsInRun: 2 });
    expect(await count('c4', SECOND + 20)).toMatchObject({
      callsInRun: 6,
      tenantCallsThisSecond: 1,
    });
    expect(await admin.ttl(store.keys.runOverflow(tenant, runId))).toBeGreaterThan(86_000);
    // Past them, 1,000 more proposals cost one counter, not 1,000 answers.
    for (let i = 0; i < 1_000; i += 1) await count(`more-${i}`, SECOND + 30);
    expect(await count('last', SECOND + 30)).toMatchObject({ callsInRun: 1_007 });
    expect(await admin.hlen(store.keys.runCalls(tenant, runId))).toBe(3);
  });

  it('refuses to keep fewer than one proposal of a run', async () => {
    await expect(store.countProposal(proposal({ keep: 0 }))).rejects.toThrow(RangeError);
  });

  it('counts every one of 50 concurrent proposals exactly once', async () => {
    const [tenant, runId] = [`t-${uid()}`, `run-${uid()}`];
    const stores = racers(5);
    const counts = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        stores[i % 5]!.countProposal(proposal({ tenant, runId })),
      ),
    );
    expect(counts.map((c) => c.callsInRun).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 50 }, (_, i) => i + 1),
    );
  });
});

describe('createRedisObjectStore', () => {
  const invoice = (tenant: string, id: string, version = 1): ResolvedObject => ({
    type: 'invoice',
    id,
    tenant,
    version,
    attributes: { total_cents: 1200, status: 'open', lines: [{ sku: 'a', n: 2 }] },
  });

  it("loads an object under its tenant and reports another tenant's as missing", async () => {
    const objects = createRedisObjectStore(store.conn, `ns-${uid()}`);
    const id = `inv-${uid()}`;
    expect(await objects.seed([invoice('acme', id)])).toBe(1);
    expect(await objects.load('acme', { type: 'invoice', id })).toEqual(invoice('acme', id));
    expect(await objects.load('globex', { type: 'invoice', id })).toBeUndefined();
    expect(await objects.load('acme', { type: 'payment', id })).toBeUndefined();
  });

  it('keeps namespaces apart and ids with separators distinct', async () => {
    const [a, b] = [`ns-${uid()}`, `ns-${uid()}`];
    await createRedisObjectStore(store.conn, a).seed([{ ...invoice('acme', 'x:y'), type: 'a' }]);
    expect(await createRedisObjectStore(store.conn, b).load('acme', { type: 'a', id: 'x:y' })).toBe(
      undefined,
    );
    expect(await createRedisObjectStore(store.conn, a).load('acme', { type: 'a:x', id: 'y' })).toBe(
      undefined,
    );
  });

  it('seeds only absent objects and puts over present ones', async () => {
    const objects = createRedisObjectStore(store.conn, `ns-${uid()}`);
    const id = `inv-${uid()}`;
    await objects.seed([invoice('acme', id, 1)]);
    expect(await objects.seed([invoice('acme', id, 7), invoice('globex', id, 7)])).toBe(1);
    expect((await objects.load('acme', { type: 'invoice', id }))?.version).toBe(1);
    await objects.put(invoice('acme', id, 9));
    expect((await objects.load('acme', { type: 'invoice', id }))?.version).toBe(9);
  });

  it('bumps the version by one on compare-and-set and refuses a stale version', async () => {
    const objects = createRedisObjectStore(store.conn, `ns-${uid()}`);
    const id = `inv-${uid()}`;
    const ref = { type: 'invoice', id };
    await objects.seed([invoice('acme', id, 4)]);
    const next = await objects.compareAndSet(ref, 'acme', 4, { status: 'paid' });
    expect(next).toEqual({ ...ref, tenant: 'acme', version: 5, attributes: { status: 'paid' } });
    expect(await objects.compareAndSet(ref, 'acme', 4, { status: 'void' })).toBe('conflict');
    expect(await objects.load('acme', ref)).toEqual(next);
    expect(await objects.compareAndSet(ref, 'globex', 5, {})).toBe('not_found');
  });

  it('lets exactly one of ten concurrent compare-and-sets on one version win', async () => {
    const namespace = `ns-${uid()}`;
    const id = `inv-${uid()}`;
    const ref = { type: 'invoice', id };
    await createRedisObjectStore(store.conn, namespace).seed([invoice('acme', id, 1)]);
    const results = await Promise.all(
      racers(10).map((s, i) =>
        createRedisObjectStore(s.conn, namespace).compareAndSet(ref, 'acme', 1, { i }),
      ),
    );
    const won = results.filter((r) => typeof r === 'object');
    expect(won).toHaveLength(1);
    expect(results.filter((r) => r === 'conflict')).toHaveLength(9);
    expect(await createRedisObjectStore(store.conn, namespace).load('acme', ref)).toEqual(won[0]);
  });

  it('refuses a namespace that could collide with another key', () => {
    expect(() => createRedisObjectStore(store.conn, 'a:b')).toThrow(RangeError);
  });

  it('logs a write made for a command with it, and nothing for a write that did not happen', async () => {
    const objects = createRedisObjectStore(store.conn, `ns-${uid()}`);
    const id = `inv-${uid()}`;
    const ref = { type: 'invoice', id };
    await objects.seed([invoice('acme', id, 4)]);
    const cause = (n: number) => ({
      idempotencyKey: `key-${n}`,
      commandId: `cmd-${n}`,
      proposalId: `p-${n}`,
      tool: 'pay_invoice',
      at: '2027-01-15T08:00:00.000Z',
    });
    await objects.compareAndSet(ref, 'acme', 4, { status: 'paid' }, cause(1));
    expect(await objects.compareAndSet(ref, 'acme', 4, { status: 'void' }, cause(2))).toBe(
      'conflict',
    );
    expect(await objects.compareAndSet(ref, 'globex', 5, {}, cause(3))).toBe('not_found');
    await objects.compareAndSet(ref, 'acme', 5, { status: 'edited' });
    expect(await objects.effects('acme')).toEqual([
      { ...cause(1), tenant: 'acme', type: 'invoice', id, versionBefore: 4, versionAfter: 5 },
    ]);
    expect(await objects.effects('globex')).toEqual([]);
  });

  it('reads a long effect log whole, in order, and lets it expire after its last write', async () => {
    const namespace = `ns-${uid()}`;
    const objects = createRedisObjectStore(store.conn, namespace, { ttlSeconds: 600 });
    const id = `inv-${uid()}`;
    const ref = { type: 'invoice', id };
    await objects.seed([invoice('acme', id, 0)]);
    const writes = 1_200;
    for (let v = 0; v < writes; v += 1) {
      const at = new Date(v).toISOString();
      const cause = {
        idempotencyKey: `k${v}`,
        commandId: `c${v}`,
        proposalId: `p${v}`,
        tool: 't',
        at,
      };
      await objects.compareAndSet(ref, 'acme', v, { v }, cause);
    }
    const log = await objects.effects('acme');
    expect(log.map((e) => e.versionBefore)).toEqual(Array.from({ length: writes }, (_, v) => v));
    const ttl = await admin.ttl(store.conn.keys.effects(namespace, 'acme'));
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(600);
  });

  it('keeps the effect log near its length, dropping the oldest entries', async () => {
    const objects = createRedisObjectStore(store.conn, `ns-${uid()}`, { length: 10 });
    const id = `inv-${uid()}`;
    const ref = { type: 'invoice', id };
    await objects.seed([invoice('acme', id, 0)]);
    for (let v = 0; v < 500; v += 1) {
      const at = new Date(v).toISOString();
      const cause = {
        idempotencyKey: `k${v}`,
        commandId: `c${v}`,
        proposalId: `p${v}`,
        tool: 't',
        at,
      };
      await objects.compareAndSet(ref, 'acme', v, { v }, cause);
    }
    const log = await objects.effects('acme');
    // Redis trims whole stream nodes (100 entries each by default): about the length, never all.
    expect(log.length).toBeGreaterThanOrEqual(10);
    expect(log.length).toBeLessThan(200);
    expect(log.at(-1)?.versionBefore).toBe(499);
  });
});

/** A TCP proxy in front of Redis that the test can take down and bring back on the same port. */
async function redisProxy(target: URL) {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port || 6379), target.hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => s.destroy());
      s.on('close', () => sockets.delete(s));
    }
    client.pipe(upstream).pipe(client);
  });
  const listen = (port: number) =>
    new Promise<number>((resolve) => {
      server.listen(port, '127.0.0.1', () => resolve((server.address() as net.AddressInfo).port));
    });
  const port = await listen(0);
  const url = new URL(target);
  url.hostname = '127.0.0.1';
  url.port = String(port);
  return {
    // The same user and password as the target's.
    url: url.toString(),
    down: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
      }),
    up: () => listen(port),
  };
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('what the caller waited for', () => {
  it('tells the observer of each operation once, by name, with the time its caller waited', async () => {
    const seen: { op: string; seconds: number; ok: boolean }[] = [];
    const s = storesOn(
      connect({ observe: (op, seconds, ok) => void seen.push({ op, seconds, ok }) }),
    );
    await s.ping();
    const started = performance.now();
    await s.getRecord('acme', `k-${uid()}`);
    await s.countProposal(counted());
    const elapsed = (performance.now() - started) / 1000;
    expect(seen.map(({ op, ok }) => [op, ok])).toEqual([
      ['ping', true],
      ['get_record', true],
      ['count_proposal', true],
    ]);
    const [, read, count] = seen;
    expect(read!.seconds).toBeGreaterThan(0);
    expect(count!.seconds).toBeGreaterThan(0);
    expect(read!.seconds + count!.seconds).toBeLessThanOrEqual(elapsed);
  });

  it('answers as Redis did when the observer throws', async () => {
    const s = storesOn(
      connect({
        observe: () => {
          throw new Error('a broken metric');
        },
      }),
    );
    const record = { digest: 'd', state: 'claimed', token: 't' } as const;
    const claim = { tenant: 'acme', key: `k-${uid()}`, record, ttlSeconds: RETENTION };
    const pending = pendingCommand(`cmd-${uid()}`, 1_800_000_000_000);
    const claimWith = () =>
      s.claimWithPending({ ...claim, pending, deadlineMs: 1_800_000_000_000 });
    expect(await claimWith()).toEqual({ claimed: true });
    expect(await claimWith()).toEqual({ claimed: false, record });
  });

  it('tells the observer of a failed operation too', async () => {
    const seen: { op: string; seconds: number; ok: boolean }[] = [];
    const lost = connect({
      url: `redis://127.0.0.1:${await freePort()}`,
      timeoutMs: 300,
      observe: (op, seconds, ok) => void seen.push({ op, seconds, ok }),
    });
    const started = performance.now();
    const objects = createRedisObjectStore(lost, 'objects');
    const fault = await faultOf(objects.load('acme', { type: 'invoice', id: 'inv_1' }));
    const elapsed = (performance.now() - started) / 1000;
    expect(fault).toMatchObject({ code: 'redis_unavailable' });
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ op: 'load_object', ok: false });
    expect(seen[0]!.seconds).toBeGreaterThan(0);
    expect(seen[0]!.seconds).toBeLessThanOrEqual(elapsed);
  });
});

describe('when Redis cannot be reached', () => {
  it('fails with a retriable redis_unavailable fault where nothing listens, rather than wait', async () => {
    const lost = storesOn(connect({ url: `redis://127.0.0.1:${await freePort()}` }));
    const fault = await faultOf(lost.getRecord('acme', 'k'));
    expect(fault).toMatchObject({ code: 'redis_unavailable', retriable: true });
  });

  it('fails while Redis is down and works again when it returns', async () => {
    const proxy = await redisProxy(new URL(stackAddresses().redisUrl));
    const logged: string[] = [];
    const logger = {
      info: (_: object, message: string) => void logged.push(`info: ${message}`),
      warn: (_: object, message: string) => void logged.push(`warn: ${message}`),
    };
    const s = storesOn(connect({ url: proxy.url, logger }));
    await s.ping();
    await proxy.down();
    expect(await faultOf(s.countProposal(counted()))).toMatchObject({
      code: 'redis_unavailable',
      retriable: true,
    });
    await proxy.up();
    await answers('the store to reconnect through the proxy', () => s.ping());
    expect(logged).toEqual(['warn: redis connection failed', 'info: redis connection restored']);
    expect((await s.countProposal(counted())).callsInRun).toBe(1);
  });

  it('recovers when its connection is killed, failing only with retriable faults meanwhile', async () => {
    const name = `tgtest-kill-${uid()}`;
    const s = storesOn(connect({ connectionName: name }));
    await s.ping();
    const list = await admin.client('LIST');
    const id = /id=(\d+) .*name=(\S+)/g;
    const mine = [...String(list).matchAll(id)].find((m) => m[2] === name)?.[1];
    expect(mine).toBeDefined();
    await admin.client('KILL', 'ID', mine!);
    const failures: unknown[] = [];
    await answers('the killed store to answer again', () =>
      s.ping().catch((error: unknown) => {
        failures.push(error);
        throw error;
      }),
    );
    for (const failure of failures)
      expect(failure).toMatchObject({ code: 'redis_unavailable', retriable: true });
    expect(await s.getRecord('acme', `k-${uid()}`)).toBeUndefined();
  });

  it('fails every operation after close with a retriable fault, and closes idempotently', async () => {
    const s = storesOn();
    await s.ping();
    await Promise.all([s.close(), s.close()]);
    expect(await faultOf(s.ping())).toMatchObject({ code: 'redis_unavailable', retriable: true });
    expect(await faultOf(s.getRecord('acme', 'k'))).toMatchObject({
      code: 'redis_unavailable',
      retriable: true,
    });
  });
});
