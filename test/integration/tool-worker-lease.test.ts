/**
 * Two tool workers of one group, each in its own process, against the real stack: a handler that
 * runs much longer than the consumer session timeout while the group rebalances runs once, and a
 * worker paused past its lease is told to stop when it wakes. Calls and aborts are counted in
 * Redis, where both processes and the test see them.
 */
import { connectRedis, createLedger, type Ledger, type RedisConnection } from '@toolgate/platform';
import type { Command } from '@toolgate/shared';
import type { Admin, Kafka } from 'kafkajs';
import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { eventually, within } from '../support/deadline.js';
import { dropNamespace, testNamespace } from '../support/namespace.js';
import { dropSubjects } from '../support/registry-cleanup.js';
import { spawnTestChild, type TestChild } from '../support/spawn-child.js';
import { kafkaClient, redisAdminUrl, redisClient, stackAddresses } from '../support/stack.js';
import {
  commandFactory,
  provisionWorkers,
  startCommandHarness,
  workerEnv,
  type CommandHarness,
} from '../support/tool-worker-harness.js';

const ns = testNamespace('tw-lease');
const TOOL = 'long';
/** The session timeout the children run with (the broker's minimum), and the rebalance timeout. */
const SESSION_MS = 6_000;
const GROUP = `${ns.id}.toolgate.worker.lease`;
const { schemaRegistryUrl, redisUrl } = stackAddresses();
const newCommand = commandFactory();

let kafka: Kafka;
let harness: CommandHarness;
let redis: Redis;
let conn: RedisConnection;
let ledger: Ledger;
let admin: Admin;
const children: TestChild[] = [];

beforeAll(async () => {
  await provisionWorkers(ns, [TOOL], ['lease']);
  kafka = kafkaClient(ns.id);
  redis = redisClient();
  conn = connectRedis({ url: redisUrl, prefix: ns.redisPrefix });
  ledger = createLedger(conn);
  harness = await startCommandHarness(kafka, ns, [TOOL]);
  admin = kafka.admin();
  await admin.connect();
});

afterEach(async () => {
  for (const child of children.splice(0)) {
    child.proc.kill('SIGCONT');
    child.proc.kill('SIGKILL');
    await child.exited;
  }
});

afterAll(async () => {
  await harness.close();
  await admin.disconnect();
  await conn.close();
  await dropNamespace(ns, { kafka, redis });
  redis.disconnect();
  await dropSubjects(schemaRegistryUrl, ns.id);
});

/**
 * Keys both children and the test count in, fresh per test, under one hash tag: the handler writes
 * two of them in one MULTI, which a Redis Cluster takes only within one slot.
 */
function counters(name: string) {
  const tag = `{${name}}`;
  return { calls: ns.key(`${tag}-calls`), aborts: ns.key(`${tag}-aborts`) };
}

/** A worker of group `lease` in a child process, instance `instance`. */
function startChild(
  instance: string,
  keys: ReturnType<typeof counters>,
  leaseMs: number,
): TestChild {
  const child = spawnTestChild('test/support/tool-worker-lease-child.ts', {
    ...workerEnv(ns, {
      TOOLGATE_INSTANCE_ID: `${ns.id}-${instance}`,
      TOOLGATE_WORKER_NAME: 'lease',
    }),
    CHILD_TOOL: TOOL,
    CHILD_CALLS_KEY: keys.calls,
    CHILD_ABORTS_KEY: keys.aborts,
    CHILD_COUNTER_REDIS_URL: redisAdminUrl(),
    CHILD_LEASE_MS: String(leaseMs),
    CHILD_REBALANCE_TIMEOUT_MS: String(SESSION_MS),
  });
  children.push(child);
  return child;
}

/** A command whose first run takes `slowMs`, with time to spare before its deadline. */
function slowCommand(slowMs: number): Command {
  const base = newCommand(TOOL);
  return {
    ...base,
    args: { ...base.args, slowMs },
    deadline: new Date(Date.now() + 180_000).toISOString(),
  };
}

/** Every result of `c` once a later command on its partition has its own: none can follow. */
async function allResultsOf(c: Command): Promise<unknown[]> {
  const sentinel = newCommand(TOOL, { context: { ...c.context, callId: 'sentinel' } });
  await harness.produce(sentinel);
  await harness.resultsOf(sentinel.commandId);
  return harness.results.filter((r) => r.value.commandId === c.commandId).map((r) => r.value);
}

const callsOf = async (key: string) => Number((await redis.get(key)) ?? '0');

describe('two tool workers in one group, and a handler longer than the session timeout', () => {
  it(
    'runs the handler once while the group rebalances, and publishes one result',
    { timeout: 180_000 },
    async () => {
      const keys = counters('rebalance');
      // Three members before the command: whichever holds the partition runs it, and one of the
      // idle two then leaves, so the group rebalances while the handler runs.
      const workers = new Map(
        ['a', 'b', 'c'].map((i) => [`${ns.id}-${i}`, startChild(i, keys, 15_000)]),
      );
      await eventually(90_000, 'three stable members in the group', async () => {
        const [group] = (await admin.describeGroups([GROUP])).groups;
        return group?.state === 'Stable' && group.members.length === 3;
      });
      const c = slowCommand(3 * SESSION_MS);
      await harness.produce(c);
      await eventually(30_000, 'the handler to start', async () => (await callsOf(keys.calls)) > 0);
      const holder = await redis.get(`${keys.calls}:by`);
      const [idle] = [...workers].filter(([instance]) => instance !== holder);
      idle?.[1].proc.kill('SIGTERM');
      const [result] = await harness.resultsOf(c.commandId);
      expect(result).toMatchObject({ status: 'ok', output: { ran: c.commandId, attempt: 1 } });
      expect(await allResultsOf(c)).toEqual([result]);
      expect(await callsOf(keys.calls)).toBe(2); // the command's run, and the sentinel's
      expect(await ledger.ledgerGet('acme', c.idempotencyKey)).toMatchObject({
        state: 'done',
        attempts: 1,
      });
      expect(await redis.lrange(keys.aborts, 0, -1)).toEqual([]);
    },
  );

  it(
    'aborts the handler of a worker paused past its lease once it wakes; the other ran it',
    { timeout: 120_000 },
    async () => {
      const keys = counters('zombie');
      const leaseMs = 2_000;
      const first = startChild('c', keys, leaseMs);
      await within(60_000, 'the first worker to join its group', first.ready);
      const c = slowCommand(120_000);
      await harness.produce(c);
      await eventually(30_000, 'the handler to start', async () => (await callsOf(keys.calls)) > 0);
      first.proc.kill('SIGSTOP');
      // Its session times out, the second takes the partition, finds the lease lapsed and resumes.
      startChild('d', keys, leaseMs);
      const [result] = await harness.resultsOf(c.commandId);
      expect(result).toMatchObject({ status: 'ok', output: { ran: c.commandId, attempt: 2 } });
      first.proc.kill('SIGCONT');
      await eventually(30_000, 'the woken handler to see its signal abort', async () =>
        Promise.resolve((await redis.llen(keys.aborts)) > 0),
      );
      expect(await redis.lrange(keys.aborts, 0, -1)).toEqual([`${c.commandId}:LeaseLost`]);
      expect(await allResultsOf(c)).toEqual([result]);
      expect(await ledger.ledgerGet('acme', c.idempotencyKey)).toMatchObject({
        state: 'done',
        attempts: 2,
      });
    },
  );
});
