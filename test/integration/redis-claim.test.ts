import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/deadline.js';
import { dropNamespace, testNamespace } from '../support/namespace.js';
import { redisClient } from '../support/stack.js';

const ns = testNamespace('redis-claim');
let redis: Redis;

// Release only if the claim is still ours: the token, not the key, proves ownership (DESIGN §5).
const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end`;

beforeAll(() => {
  redis = redisClient();
});

afterAll(async () => {
  await dropNamespace(ns, { redis });
  await redis.quit();
});

const claim = (key: string, token: string, ttlMs: number) =>
  redis.set(key, token, 'PX', ttlMs, 'NX');

describe('SET NX PX claims on the real Redis', () => {
  it('gives the key to the first claimant only, with the expiry it asked for', async () => {
    const key = ns.key('first-wins');
    const [first, second] = [randomUUID(), randomUUID()];
    expect(await claim(key, first, 60_000)).toBe('OK');
    expect(await claim(key, second, 60_000)).toBeNull();
    expect(await redis.get(key)).toBe(first);
    const ttl = await redis.pttl(key);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(60_000);
  });

  it('lets only the holder of the token release the claim', async () => {
    const key = ns.key('release');
    const holder = randomUUID();
    await claim(key, holder, 60_000);
    expect(await redis.eval(RELEASE, 1, key, randomUUID())).toBe(0);
    expect(await redis.get(key)).toBe(holder);
    expect(await redis.eval(RELEASE, 1, key, holder)).toBe(1);
    expect(await claim(key, randomUUID(), 60_000)).toBe('OK');
  });

  it('frees the key when the claim expires, so a new claimant can take it', async () => {
    const key = ns.key('expiry');
    await claim(key, randomUUID(), 50);
    await eventually(
      5_000,
      'the 50 ms claim to expire',
      async () => (await redis.exists(key)) === 0,
    );
    expect(await claim(key, 'next', 60_000)).toBe('OK');
  });
});
