import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createGateOutputs,
  generateOutputKeys,
  connectRedis,
  createConfirmations,
  Fault,
  gateTopics,
  type Confirmations,
  type Outgoing,
  type RedisConnection,
} from '@toolgate/platform';
import { dropNamespace, testNamespace } from '../../../test/support/namespace.js';
import { redisClient, stackAddresses } from '../../../test/support/stack.js';
import { waitingConfirmation } from './confirm-fixtures.test-support.js';
import { createExpirySweeper } from './sweep-expired.js';

const ns = testNamespace('confirm-sweep');
const outputs = createGateOutputs(
  gateTopics(`${ns.id}.`),
  generateOutputKeys(),
  new Set(['acme', 'globex']),
);
const EXPIRES = Date.parse('2030-01-01T00:00:00Z');
const LEASE = 5000;
let redis: RedisConnection;
let confirmations: Confirmations;

const pending = (id: string) => waitingConfirmation(id, EXPIRES);

/**
 * A sweeper at a fixed clock whose publishing succeeds (into `sent`) or crashes; on `store`, the
 * test's own connection unless told otherwise, ending at most `limit` per sweep.
 */
function sweeperAt(
  nowMs: number,
  sent: Outgoing[][] | 'crash',
  { store = confirmations, limit }: { store?: Confirmations; limit?: number } = {},
) {
  return createExpirySweeper({
    confirmations: store,
    outputs,
    ...(limit === undefined ? {} : { limit }),
    metrics: { decision: () => undefined, fault: () => undefined },
    logger: { error: () => undefined },
    now: () => new Date(nowMs),
    leaseMs: LEASE,
    produce: (outgoing) => {
      if (sent === 'crash') {
        return Promise.reject(new Fault('kafka_unavailable', 'crashed'));
      }
      sent.push([...outgoing]);
      return Promise.resolve();
    },
  });
}

describe('the expiry sweeper', () => {
  beforeAll(() => {
    redis = connectRedis({ url: stackAddresses().redisUrl, prefix: ns.redisPrefix });
    confirmations = createConfirmations(redis);
  });
  afterAll(async () => {
    await redis.close();
    const admin = redisClient();
    await dropNamespace(ns, { redis: admin }).finally(() => admin.disconnect());
  });

  it('leaves a confirmation alone until it expires', async () => {
    await confirmations.parkConfirmation(pending('conf_early'), 60_000, 'authorized@0:1');
    const sent: Outgoing[][] = [];
    expect(await sweeperAt(EXPIRES - 1, sent).sweepOnce()).toBe(0);
    expect((await confirmations.readConfirmation('acme', 'conf_early'))?.state).toBe('waiting');
  });

  it('answers a confirmation whose sweep crashed before publishing, once its lease ran out', async () => {
    const id = 'conf_crash';
    await confirmations.parkConfirmation(pending(id), 60_000, 'authorized@0:2');
    const claimedAt = EXPIRES + 1000;
    await expect(sweeperAt(claimedAt, 'crash').sweepOnce()).rejects.toMatchObject({
      code: 'kafka_unavailable',
    });
    // Claimed: no approval can take it any more, and no other sweep sees it during the lease.
    expect(await confirmations.takeConfirmation('acme', id, 'approvals@0:9')).toBeUndefined();
    const sent: Outgoing[][] = [];
    expect(await sweeperAt(claimedAt + LEASE - 1, sent).sweepOnce()).toBe(0);

    expect(await sweeperAt(claimedAt + LEASE, sent).sweepOnce()).toBeGreaterThanOrEqual(1);
    const mine = sent
      .flat()
      .filter((o) => (o as { value: { proposalId?: string } }).value.proposalId === `p-${id}`);
    expect(mine.map((o) => o.topic)).toEqual([
      outputs.topics.observationsOf('acme'),
      outputs.topics.audit,
    ]);
    expect((mine[0] as { value: unknown }).value).toMatchObject({
      outcome: 'expired',
      stage: 'confirmation',
      code: 'expired',
      callId: 'call-1',
    });
    expect((mine[1] as { value: unknown }).value).toMatchObject({
      kind: 'expired',
      confirmationId: id,
      tenant: 'acme',
    });
    expect((await confirmations.readConfirmation('acme', id))?.state).toBe('finished');

    const later: Outgoing[][] = [];
    expect(await sweeperAt(claimedAt + 100 * LEASE, later).sweepOnce()).toBe(0);
  });

  it('answers the rest of its batch when one expired confirmation cannot be read', async () => {
    await confirmations.parkConfirmation(pending('conf_bad'), 60_000, 'authorized@0:3');
    await confirmations.parkConfirmation(pending('conf_beside_bad'), 60_000, 'authorized@0:4');
    const admin = redisClient();
    await admin
      .hset(redis.keys.confirmation('acme', 'conf_bad'), 'json', '{"confirmationId":1}')
      .finally(() => admin.disconnect());
    const errors: object[] = [];
    const faults: string[] = [];
    const sent: Outgoing[][] = [];
    const sweeper = createExpirySweeper({
      confirmations,
      outputs,
      metrics: { decision: () => undefined, fault: (code) => void faults.push(code) },
      logger: { error: (fields: object) => void errors.push(fields) },
      now: () => new Date(EXPIRES + 1000),
      leaseMs: LEASE,
      produce: (outgoing) => Promise.resolve(void sent.push([...outgoing])),
    });
    expect(await sweeper.sweepOnce()).toBe(1);
    const answered = sent.flat().map((o) => (o as { value: { proposalId?: string } }).value);
    expect(answered.map((v) => v.proposalId)).toEqual(['p-conf_beside_bad', 'p-conf_beside_bad']);
    expect(errors).toEqual([
      expect.objectContaining({ member: redis.keys.confirmationMember('acme', 'conf_bad') }),
    ]);
    expect(faults).toEqual(['store_corrupt']);
    expect((await confirmations.readConfirmation('acme', 'conf_beside_bad'))?.state).toBe(
      'finished',
    );
  });

  it('answers each expired confirmation once when two confirm instances sweep at the same time', async () => {
    const ids = Array.from({ length: 24 }, (_, i) => `conf_two_${i}`);
    for (const [i, id] of ids.entries()) {
      await confirmations.parkConfirmation(pending(id), 60_000, `authorized@1:${i}`);
    }
    // The other instance has a Redis connection of its own; both sweep in small batches, at once.
    const other = connectRedis({ url: stackAddresses().redisUrl, prefix: ns.redisPrefix });
    const sentA: Outgoing[][] = [];
    const sentB: Outgoing[][] = [];
    try {
      const at = EXPIRES + 2000;
      const a = sweeperAt(at, sentA, { limit: 5 });
      const b = sweeperAt(at, sentB, { store: createConfirmations(other), limit: 5 });
      for (;;) {
        const ended = await Promise.all([a.sweepOnce(), b.sweepOnce()]);
        if (ended.every((n) => n === 0)) break;
      }
    } finally {
      await other.close();
    }
    const observed = (sent: Outgoing[][]) =>
      sent
        .flat()
        .filter((o) => o.topic === outputs.topics.observationsOf('acme'))
        .map((o) => (o as { value: { proposalId: string } }).value.proposalId)
        .filter((p) => p.startsWith('p-conf_two_'));
    const all = [...observed(sentA), ...observed(sentB)].sort();
    expect(all).toEqual(ids.map((id) => `p-${id}`).sort());
  });
});
