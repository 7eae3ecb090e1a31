/**
 * The stack's Redis users as Redis enforces them: a tool worker's user may touch its ledger and
 * the objects its tools change, and nothing the gate decides with (pending confirmations,
 * idempotency records, pending commands, counters); the gate's user may; a client that does not
 * log in may do nothing.
 */
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { redisTarget, storeKeys } from '@toolgate/platform';
import { readFileSync } from 'node:fs';
import {
  adminRedisUrl,
  createWorkerRedisUser,
  dropWorkerRedisUser,
} from '../../infra/provision.js';
import {
  REDIS_GATE_USER,
  REDIS_WORKER_USER,
  redisUrlAs,
  withEveryRedisNode,
} from '../../infra/redis.js';
import { redisAt } from '../support/redis-at.js';
import { redisClient, stackAddresses, stackConfig } from '../support/stack.js';

const keys = storeKeys('toolgate:');
const probe = `redis-users-${Date.now().toString(36)}`;
const opened: Redis[] = [];

function as(user: string): Redis {
  const redis = redisAt(redisUrlAs(stackConfig(), user), { maxRetriesPerRequest: 1 });
  opened.push(redis);
  return redis;
}

afterAll(async () => {
  const admin = redisClient();
  try {
    await admin.del(keys.ledger('acme', probe), keys.confirmation('acme', probe));
  } finally {
    admin.disconnect();
  }
  for (const redis of opened) redis.disconnect();
});

/** What Redis answers `user` for writing `key`: OK, or its refusal's first word. */
async function write(redis: Redis, key: string): Promise<string> {
  try {
    return await redis.hset(key, 'probe', '1').then(() => 'OK');
  } catch (error) {
    return (error as Error).message.split(' ')[0] ?? 'ERR';
  }
}

describe("the worker's Redis user", () => {
  const worker = () => as(REDIS_WORKER_USER);

  it('is refused a pending confirmation, an idempotency record, a pending command and a counter', async () => {
    const redis = worker();
    expect(await write(redis, keys.confirmation('acme', probe))).toBe('NOPERM');
    expect(await write(redis, keys.idempotency('acme', probe))).toBe('NOPERM');
    expect(await write(redis, keys.pendingCommand(probe))).toBe('NOPERM');
    expect(await write(redis, keys.runCalls('acme', probe))).toBe('NOPERM');
    expect(await write(redis, keys.tenantMinute('acme', 1))).toBe('NOPERM');
    expect(await write(redis, keys.userMinute('acme', probe, 1))).toBe('NOPERM');
    expect(await write(redis, keys.repairChains('acme', probe))).toBe('NOPERM');
    await expect(redis.zadd(keys.deadlinesOf(probe), 1, probe)).rejects.toThrow(/NOPERM/);
  });

  it('is refused a counter whose run id a client chose to look like a ledger key', async () => {
    expect(await write(worker(), keys.runCalls('acme', `x:ledger:{${probe}`))).toBe('NOPERM');
  });

  it('may write its ledger', async () => {
    expect(await write(worker(), keys.ledger('acme', probe))).toBe('OK');
  });

  it('may not read the keys it may not write', async () => {
    await expect(worker().hgetall(keys.confirmation('acme', probe))).rejects.toThrow(/NOPERM/);
  });
});

describe("the gate's Redis user", () => {
  it('may write a pending confirmation', async () => {
    expect(await write(as(REDIS_GATE_USER), keys.confirmation('acme', probe))).toBe('OK');
  });

  it('may not administer the server', async () => {
    await expect(as(REDIS_GATE_USER).call('ACL', 'SETUSER', 'intruder', 'on')).rejects.toThrow(
      /NOPERM/,
    );
    await expect(as(REDIS_GATE_USER).flushall()).rejects.toThrow(/NOPERM/);
  });
});

describe('a client that does not log in', () => {
  it('may do nothing: the default user is off', async () => {
    // One node is enough: each node of a cluster keeps the same users.
    const [node] = redisTarget(stackAddresses().redisUrl).nodes;
    const anonymous = new Redis({
      ...node,
      maxRetriesPerRequest: 0,
      lazyConnect: true,
      enableReadyCheck: false,
      retryStrategy: () => null,
    });
    opened.push(anonymous);
    anonymous.on('error', () => undefined);
    await expect(
      (async () => {
        await anonymous.connect();
        await anonymous.get('toolgate:anything');
      })(),
    ).rejects.toThrow(/NOAUTH|NOPERM|WRONGPASS|disabled/);
  });
});

/** The users named in each node's ACL file, the file a restarted node loads. */
async function usersInAclFiles(): Promise<string[][]> {
  const files: string[][] = [];
  await withEveryRedisNode(adminRedisUrl(stackConfig()), async (redis) => {
    const [, file] = (await redis.call('CONFIG', 'GET', 'aclfile')) as [string, string];
    const lines = readFileSync(file, 'utf8').split('\n');
    files.push(lines.map((line) => line.split(' ')[1] ?? '').filter(Boolean));
  });
  return files;
}

describe.skipIf(stackConfig().external.has('redis'))('a Redis user made at run time', () => {
  it("is written to every node's ACL file, and gone from it once dropped", async () => {
    const config = stackConfig();
    const { user } = await createWorkerRedisUser(config, `${probe}-acl:`);
    try {
      for (const users of await usersInAclFiles()) expect(users).toContain(user);
    } finally {
      await dropWorkerRedisUser(config, user);
    }
    for (const users of await usersInAclFiles()) expect(users).not.toContain(user);
  });
});
