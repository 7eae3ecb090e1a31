import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createGateOutputs,
  generateOutputKeys,
  createStore,
  Fault,
  gateTopics,
  type Outgoing,
  type Store,
} from '@toolgate/platform';
import type { PendingConfirmation } from '@toolgate/shared';
import { dropNamespace, testNamespace } from '../../../test/support/namespace.js';
import { redisClient, stackAddresses } from '../../../test/support/stack.js';
import { createExpirySweeper } from './sweep-expired.js';

const ns = testNamespace('confirm-sweep');
const outputs = createGateOutputs(
  gateTopics(`${ns.id}.`),
  generateOutputKeys(),
  new Set(['acme', 'globex']),
);
const EXPIRES = Date.parse('2030-01-01T00:00:00Z');
const LEASE = 5000;
let store: Store;

const pending = (id: string): PendingConfirmation => ({
  confirmationId: id,
  proposalId: `p-${id}`,
  runId: 'run-1',
  requestId: 'req-1',
  callId: 'call-1',
  tenant: 'acme',
  requestedBy: 'alice',
  requesterRoles: ['approver'],
  tool: 'refund_payment',
  toolVersion: '1',
  attempt: 0,
  receivedAt: new Date(EXPIRES - 60_000).toISOString(),
  args: { payment_id: 'pay_11', amount_cents: 500 },
  objects: [{ type: 'Payment', id: 'pay_11', version: 1 }],
  card: { action: 'Refund payment', target: 'pay_11', effect: 'refund', preview: null },
  digest: 'd'.repeat(64),
  policyVersion: 'p'.repeat(64),
  expiresAt: new Date(EXPIRES).toISOString(),
});

/** A sweeper at a fixed clock whose publishing succeeds (into `sent`) or crashes. */
function sweeperAt(nowMs: number, sent: Outgoing[][] | 'crash') {
  return createExpirySweeper({
    store,
    outputs,
    metrics: { decision: () => undefined, fault: () => undefined },
    logger: { error: () => undefined },
    now: () => new Date(nowMs),
    leaseMs: LEASE,
    produce: (outgoing) => {
      if (sent === 'crash') {
        return Promise.reject(new Fault('kafka_unavailable', 'crashed', { retriable: true }));
      }
      sent.push([...outgoing]);
      return Promise.resolve();
    },
  });
}

describe('the expiry sweeper', () => {
  beforeAll(() => {
    store = createStore({ url: stackAddresses().redisUrl, prefix: ns.redisPrefix });
  });
  afterAll(async () => {
    await store.close();
    const redis = redisClient();
    await dropNamespace(ns, { redis }).finally(() => redis.disconnect());
  });

  it('leaves a confirmation alone until it expires', async () => {
    await store.parkConfirmation(pending('conf_early'), 60_000, 'authorized@0:1');
    const sent: Outgoing[][] = [];
    expect(await sweeperAt(EXPIRES - 1, sent).sweepOnce()).toBe(0);
    expect((await store.readConfirmation('acme', 'conf_early'))?.state).toBe('waiting');
  });

  it('answers a confirmation whose sweep crashed before publishing, once its lease ran out', async () => {
    const id = 'conf_crash';
    await store.parkConfirmation(pending(id), 60_000, 'authorized@0:2');
    const claimedAt = EXPIRES + 1000;
    await expect(sweeperAt(claimedAt, 'crash').sweepOnce()).rejects.toMatchObject({
      code: 'kafka_unavailable',
    });
    // Claimed: no approval can take it any more, and no other sweep sees it during the lease.
    expect(await store.takeConfirmation('acme', id, 'approvals@0:9')).toBeUndefined();
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
    expect((await store.readConfirmation('acme', id))?.state).toBe('finished');

    const later: Outgoing[][] = [];
    expect(await sweeperAt(claimedAt + 100 * LEASE, later).sweepOnce()).toBe(0);
  });

  it('answers the rest of its batch when one expired confirmation cannot be read', async () => {
    await store.parkConfirmation(pending('conf_bad'), 60_000, 'authorized@0:3');
    await store.parkConfirmation(pending('conf_beside_bad'), 60_000, 'authorized@0:4');
    const redis = redisClient();
    await redis
      .hset(store.keys.confirmation('acme', 'conf_bad'), 'json', '{"confirmationId":1}')
      .finally(() => redis.disconnect());
    const errors: object[] = [];
    const faults: string[] = [];
    const sent: Outgoing[][] = [];
    const sweeper = createExpirySweeper({
      store,
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
      expect.objectContaining({ member: store.keys.confirmationMember('acme', 'conf_bad') }),
    ]);
    expect(faults).toEqual(['store_corrupt']);
    expect((await store.readConfirmation('acme', 'conf_beside_bad'))?.state).toBe('finished');
  });
});
