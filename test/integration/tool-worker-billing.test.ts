/**
 * The example's tools on the tool worker, against the real stack: commands as the execute stage
 * issues them change the shared Redis object store (the one the gate resolves from) with
 * compare-and-set on the versions they carry, and the results say what happened.
 */
import {
  connectRedis,
  createRedisObjectStore,
  OBJECT_NAMESPACE,
  type RedisConnection,
  type RedisObjectStore,
} from '@toolgate/platform';
import type { Command, ObjectRef } from '@toolgate/shared';
import { startToolWorker, type ToolWorker } from '@toolgate/tool-worker';
import type { Kafka } from 'kafkajs';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SEED_OBJECTS } from '../../examples/billing/data.js';
import { createBillingHandlers } from '../../examples/billing/tool-handlers.js';
import { eventually } from '../support/deadline.js';
import { dropNamespace, testNamespace } from '../support/namespace.js';
import { dropSubjects } from '../support/registry-cleanup.js';
import { kafkaClient, redisClient, stackAddresses } from '../support/stack.js';
import {
  commandFactory,
  provisionWorkers,
  startCommandHarness,
  workerEnv,
  type CommandHarness,
} from '../support/tool-worker-harness.js';

const ns = testNamespace('tw-billing');
const TOOLS = ['search', 'calculate', 'final', 'approve_invoice', 'send_email', 'refund_payment'];
const newCommand = commandFactory();

let kafka: Kafka;
let redis: Redis;
let store: RedisConnection;
let workerStore: RedisConnection;
let objects: RedisObjectStore;
let worker: ToolWorker;
let harness: CommandHarness;

beforeAll(async () => {
  await provisionWorkers(ns, TOOLS, ['billing']);
  kafka = kafkaClient(ns.id);
  redis = redisClient();
  store = connectRedis({ url: stackAddresses().redisUrl, prefix: ns.redisPrefix });
  objects = createRedisObjectStore(store, OBJECT_NAMESPACE);
  await objects.seed(SEED_OBJECTS);
  // The handlers change objects as the worker's own Redis user, which may touch only them.
  workerStore = connectRedis({
    url: workerEnv(ns)['TOOLGATE_REDIS_URL'] ?? '',
    prefix: ns.redisPrefix,
  });
  worker = await startToolWorker({
    env: workerEnv(ns),
    name: 'billing',
    tools: createBillingHandlers(createRedisObjectStore(workerStore, OBJECT_NAMESPACE)),
  });
  harness = await startCommandHarness(kafka, ns, TOOLS);
  await eventually(60_000, 'the worker to join its group', () => Promise.resolve(worker.ready()));
});

afterAll(async () => {
  await harness.close();
  await worker.stop();
  await workerStore.close();
  await store.close();
  await dropNamespace(ns, { kafka, redis });
  redis.disconnect();
  await dropSubjects(stackAddresses().schemaRegistryUrl, ns.id);
});

/** A command of `tool` by alice of acme, on `object` at `version`. */
function command(
  tool: string,
  args: Record<string, unknown>,
  object?: ObjectRef & { readonly version: number },
  tenant = 'acme',
): Command {
  const base = newCommand(tool);
  return {
    ...base,
    args,
    context: { ...base.context, tenant },
    objects: object === undefined ? [] : [object],
  };
}

/** Runs `c` through the worker and returns its one result. */
async function run(c: Command) {
  await harness.produce(c);
  const [result] = await harness.resultsOf(c.commandId);
  return result;
}

const live = (type: string, id: string, tenant = 'acme') => objects.load(tenant, { type, id });

describe('approve_invoice', () => {
  it('approves an open invoice with compare-and-set: the version goes up by one', async () => {
    const result = await run(
      command(
        'approve_invoice',
        { invoice_id: 'inv_481', status: 'approved' },
        {
          type: 'Invoice',
          id: 'inv_481',
          version: 1,
        },
      ),
    );
    expect(result).toMatchObject({
      status: 'ok',
      output: { invoice: 'inv_481', status: 'approved', version: 2 },
    });
    expect(await live('Invoice', 'inv_481')).toMatchObject({
      version: 2,
      attributes: { status: 'approved', decided_by: 'alice', amount_cents: 120_000 },
    });
  });

  it('refuses a second decision made on the old version as stale_object, and changes nothing', async () => {
    const before = await live('Invoice', 'inv_481');
    const result = await run(
      command(
        'approve_invoice',
        { invoice_id: 'inv_481', status: 'rejected' },
        {
          type: 'Invoice',
          id: 'inv_481',
          version: 1,
        },
      ),
    );
    expect(result).toMatchObject({ status: 'error', error: { code: 'stale_object' } });
    expect(await live('Invoice', 'inv_481')).toEqual(before);
  });

  it("answers not_found for another tenant's invoice, as for a missing one", async () => {
    const result = await run(
      command(
        'approve_invoice',
        { invoice_id: 'inv_900', status: 'approved' },
        { type: 'Invoice', id: 'inv_900', version: 1 },
        'acme',
      ),
    );
    expect(result).toMatchObject({ status: 'error', error: { code: 'not_found' } });
    expect(await live('Invoice', 'inv_900', 'globex')).toMatchObject({
      version: 1,
      attributes: { status: 'open' },
    });
  });

  it('finds its own write when the same command runs again, and changes nothing twice', async () => {
    const handlers = createBillingHandlers(objects);
    const c = command(
      'approve_invoice',
      { invoice_id: 'inv_482', status: 'approved' },
      {
        type: 'Invoice',
        id: 'inv_482',
        version: 1,
      },
    );
    const context = { signal: new AbortController().signal, deadline: new Date(c.deadline) };
    const now = () => new Date();
    const first = await handlers['approve_invoice']?.(c, { ...context, attempt: 1, now });
    const again = await handlers['approve_invoice']?.(c, { ...context, attempt: 2, now });
    expect(first).toEqual({
      status: 'ok',
      output: { invoice: 'inv_482', status: 'approved', version: 2 },
    });
    expect(again).toEqual(first);
    expect(await live('Invoice', 'inv_482')).toMatchObject({ version: 2 });
  });
});

describe('refund_payment', () => {
  it('refunds within what is left and refuses a refund over the remaining amount', async () => {
    const pay = (version: number) => ({ type: 'Payment', id: 'pay_11', version });
    const first = await run(
      command('refund_payment', { payment_id: 'pay_11', amount_cents: 3_000 }, pay(1)),
    );
    expect(first).toMatchObject({
      status: 'ok',
      output: { payment: 'pay_11', refunded_cents: 3_000, remaining_cents: 2_000, version: 2 },
    });
    const over = await run(
      command('refund_payment', { payment_id: 'pay_11', amount_cents: 2_001 }, pay(2)),
    );
    expect(over).toMatchObject({ status: 'error', error: { code: 'refund_exceeds_remaining' } });
    expect(await live('Payment', 'pay_11')).toMatchObject({
      version: 2,
      attributes: { amount_cents: 5_000, refunded_cents: 3_000 },
    });
  });
});

describe('send_email', () => {
  it('sends a draft once: one outbox entry, a replay for the duplicate, a refusal for another send', async () => {
    const draft = (version: number) => ({ type: 'Draft', id: 'draft_7', version });
    const c = command('send_email', { draft_id: 'draft_7' }, draft(1));
    await harness.produce(c, c);
    const [sent, replayed] = await harness.resultsOf(c.commandId, 2);
    expect(sent).toMatchObject({
      status: 'ok',
      output: { draft: 'draft_7', sent: true, email: `email_${c.commandId}`, version: 2 },
    });
    expect(replayed).toEqual(sent);
    expect(await live('Draft', 'draft_7')).toMatchObject({
      version: 2,
      attributes: { sent: true },
    });
    expect(await live('Email', `email_${c.commandId}`)).toMatchObject({
      attributes: { draft: 'draft_7', to: ['ops@acme.example'], subject: 'Q3 report' },
    });

    const again = command('send_email', { draft_id: 'draft_7' }, draft(2));
    expect(await run(again)).toMatchObject({ status: 'error', error: { code: 'already_sent' } });
    const stale = command('send_email', { draft_id: 'draft_7' }, draft(1));
    expect(await run(stale)).toMatchObject({ status: 'error', error: { code: 'stale_object' } });
    for (const other of [again, stale]) {
      expect(await live('Email', `email_${other.commandId}`)).toBeUndefined();
    }
    expect(await live('Draft', 'draft_7')).toMatchObject({ version: 2 });
  });
});

describe('search, calculate and final', () => {
  it("searches the caller's tenant only, up to max_results", async () => {
    const result = await run(command('search', { query: 'invoice', max_results: 3 }));
    const output = result?.output as { results: { id: string }[] };
    expect(output.results).toHaveLength(3);
    const globex = await run(command('search', { query: 'invoice inv_481' }, undefined, 'globex'));
    const found = (globex?.output as { results: { id: string }[] }).results;
    expect(found.map((r) => r.id)).toContain('globex-inv_900');
    // The query names acme's invoice; what comes back never does.
    expect(JSON.stringify(found)).not.toMatch(/acme|inv_48/);
  });

  it('calculates arithmetic, and answers division by zero with an error', async () => {
    expect(await run(command('calculate', { expression: '1200 * 0.2 + 10' }))).toMatchObject({
      status: 'ok',
      output: { value: 250 },
    });
    expect(await run(command('calculate', { expression: '1 / (2 - 2)' }))).toMatchObject({
      status: 'error',
      error: { code: 'division_by_zero' },
    });
  });

  it('acknowledges a final answer', async () => {
    expect(await run(command('final', { answer: 'Done.' }))).toMatchObject({
      status: 'ok',
      output: { acknowledged: true, answer: 'Done.' },
    });
  });
});

describe("the tools' record of effects", () => {
  /** A fresh payment of acme's at version 1, refundable many times over. */
  async function freshPayment(): Promise<ObjectRef & { readonly version: number }> {
    const id = `pay_fx_${Math.random().toString(36).slice(2, 8)}`;
    await objects.seed([
      {
        type: 'Payment',
        id,
        tenant: 'acme',
        version: 1,
        attributes: { amount_cents: 100_000, refunded_cents: 0, currency: 'EUR' },
      },
    ]);
    return { type: 'Payment', id, version: 1 };
  }

  const effectsOf = async (c: Command) =>
    (await objects.effects('acme')).filter((e) => e.idempotencyKey === c.idempotencyKey);

  it('records one entry per applied write, with its cause, and none for a redelivery or a stale version', async () => {
    const payment = await freshPayment();
    const c = command('refund_payment', { payment_id: payment.id, amount_cents: 1_000 }, payment);
    await harness.produce(c, c);
    expect(await harness.resultsOf(c.commandId, 2)).toMatchObject([
      { status: 'ok' },
      { status: 'ok' },
    ]);
    const [entry, ...more] = await effectsOf(c);
    expect(more).toEqual([]);
    expect(entry).toEqual({
      idempotencyKey: c.idempotencyKey,
      commandId: c.commandId,
      proposalId: c.context.proposalId,
      tenant: 'acme',
      tool: 'refund_payment',
      type: 'Payment',
      id: payment.id,
      versionBefore: 1,
      versionAfter: 2,
      at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) as unknown,
    });
    const stale = command('refund_payment', { payment_id: payment.id, amount_cents: 1 }, payment);
    expect(await run(stale)).toMatchObject({ status: 'error', error: { code: 'stale_object' } });
    expect(await effectsOf(stale)).toEqual([]);
  });

  it('records nothing for a run of the handler that finds its own earlier write', async () => {
    const handlers = createBillingHandlers(objects);
    const refund = handlers['refund_payment'];
    if (refund === undefined) throw new Error('the example has no refund_payment handler');
    const payment = await freshPayment();
    const c = command('refund_payment', { payment_id: payment.id, amount_cents: 500 }, payment);
    const context = { signal: new AbortController().signal, deadline: new Date(c.deadline) };
    const now = () => new Date();
    const first = await refund(c, { ...context, attempt: 1, now });
    // The ledger's `resumed`: the command runs again after a crash that came after the write.
    const again = await refund(c, { ...context, attempt: 2, now });
    expect(again).toEqual(first);
    // Two deliveries at once: one wins the compare-and-set, the other finds the winner's write.
    const racing = command(
      'refund_payment',
      { payment_id: payment.id, amount_cents: 700 },
      {
        ...payment,
        version: 2,
      },
    );
    const both = await Promise.all(
      [1, 2].map((attempt) => refund(racing, { ...context, attempt, now })),
    );
    expect(both).toMatchObject([{ status: 'ok' }, { status: 'ok' }]);
    expect(await effectsOf(c)).toHaveLength(1);
    expect(await effectsOf(racing)).toMatchObject([{ versionBefore: 2, versionAfter: 3 }]);
  });
});
