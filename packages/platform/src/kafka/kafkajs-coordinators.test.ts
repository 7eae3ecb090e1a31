/**
 * kafkajs 2.2.4 looks up the transaction coordinator three times in every transaction and the
 * group coordinator once more: four FindCoordinator round trips for a transaction whose own work
 * is five requests. `patches/kafkajs+2.2.4.patch` keeps each coordinator once found and forgets it
 * when it says it is not the coordinator or does not answer, as the Java client does. The first
 * request of a transaction begun while the last one's markers are still being written is refused
 * with CONCURRENT_TRANSACTIONS; the patch retries it within milliseconds, where kafkajs left it to
 * the producer's retrier (a metadata refresh and its first retry time, 20 ms in the gate). These
 * tests drive the installed transaction manager against a cluster that counts lookups and
 * requests, so they fail if the patch is not applied.
 */
import { createRequire } from 'node:module';
import { afterEach, describe, expect, it, vi } from 'vitest';

type Request = (args: Record<string, unknown>) => Promise<unknown>;
type Broker = { readonly nodeId: number } & Record<string, Request | number>;

interface EosManager {
  initProducerId(): Promise<void>;
  beginTransaction(): void;
  addPartitionsToTransaction(
    topics: { topic: string; partitions: { partition: number }[] }[],
  ): Promise<void>;
  sendOffsets(args: {
    consumerGroupId: string;
    topics: { topic: string; partitions: { partition: number; offset: string }[] }[];
  }): Promise<void>;
  commit(): Promise<void>;
  abort(): Promise<void>;
}

const require = createRequire(import.meta.url);
const createEosManager = require('kafkajs/src/producer/eosManager/index.js') as (options: {
  logger: Record<'debug' | 'info' | 'warn' | 'error', () => void>;
  cluster: unknown;
  transactional: boolean;
  transactionalId: string;
}) => EosManager;

const TRANSACTION = 1;
const quiet = { debug() {}, info() {}, warn() {}, error() {} };

/**
 * A protocol error as kafkajs makes them: `type` is kafkajs's name for the error code
 * (protocol/error.js), e.g. NOT_COORDINATOR_FOR_GROUP for code 16.
 */
function protocolError(type: string): Error {
  const error = Object.assign(new Error(type), { type, retriable: true });
  error.name = 'KafkaJSProtocolError';
  return error;
}

/**
 * A cluster whose coordinators live on node 1 until `move()`, then on node 2; node 1 then
 * answers every coordinator request with NOT_COORDINATOR_FOR_GROUP. `refuse(api, type, times)` makes the
 * next `times` such requests fail with a protocol error of `type`. Records who was asked what.
 */
function cluster() {
  const lookups: string[] = [];
  const calls: string[] = [];
  let coordinatorNode = 1;
  const refusals = new Map<string, { type: string; left: number }>();
  const broker = (nodeId: number): Broker => {
    const answer =
      (api: string): Request =>
      () => {
        calls.push(`${api}@${nodeId}`);
        const refusal = refusals.get(api);
        if (refusal !== undefined && refusal.left > 0) {
          refusal.left -= 1;
          return Promise.reject(protocolError(refusal.type));
        }
        if (nodeId !== coordinatorNode)
          return Promise.reject(protocolError('NOT_COORDINATOR_FOR_GROUP'));
        return Promise.resolve(api === 'initProducerId' ? { producerId: 7, producerEpoch: 0 } : {});
      };
    return {
      nodeId,
      initProducerId: answer('initProducerId'),
      addPartitionsToTxn: answer('addPartitionsToTxn'),
      addOffsetsToTxn: answer('addOffsetsToTxn'),
      txnOffsetCommit: answer('txnOffsetCommit'),
      endTxn: answer('endTxn'),
    };
  };
  const brokers = new Map([1, 2].map((id) => [id, broker(id)]));
  return {
    lookups,
    calls,
    move: () => (coordinatorNode = 2),
    refuse: (api: string, type: string, times = 1) => refusals.set(api, { type, left: times }),
    fake: {
      retry: { retries: 3, initialRetryTime: 1, maxRetryTime: 5 },
      refreshMetadataIfNecessary: () => Promise.resolve(),
      findBroker: ({ nodeId }: { nodeId: number }) => Promise.resolve(brokers.get(nodeId)),
      findGroupCoordinator: ({
        groupId,
        coordinatorType,
      }: {
        groupId: string;
        coordinatorType: number;
      }) => {
        lookups.push(`${coordinatorType === TRANSACTION ? 'transaction' : 'group'} ${groupId}`);
        return Promise.resolve(brokers.get(coordinatorNode));
      },
    },
  };
}

async function transaction(eos: EosManager, offset: number): Promise<void> {
  eos.beginTransaction();
  await eos.addPartitionsToTransaction([{ topic: 'out', partitions: [{ partition: 0 }] }]);
  await eos.sendOffsets({
    consumerGroupId: 'stage',
    topics: [{ topic: 'in', partitions: [{ partition: 0, offset: String(offset) }] }],
  });
  await eos.commit();
}

function manager(fake: unknown): EosManager {
  return createEosManager({
    logger: quiet,
    cluster: fake,
    transactional: true,
    transactionalId: 'tx',
  });
}

/** A manager with its producer id, and one transaction committed: both coordinators known. */
async function afterOneTransaction() {
  const c = cluster();
  const eos = manager(c.fake);
  await eos.initProducerId();
  await transaction(eos, 1);
  return { c, eos };
}

/** Begins a transaction whose first request is refused with `type`, and aborts it. */
async function refusedFirstRequest(eos: EosManager, type: string, partition = 0): Promise<void> {
  eos.beginTransaction();
  await expect(
    eos.addPartitionsToTransaction([{ topic: 'out', partitions: [{ partition }] }]),
  ).rejects.toMatchObject({ type });
  await eos.abort();
}

afterEach(() => {
  vi.useRealTimers();
});

describe('the transaction manager with patches/kafkajs+2.2.4.patch', () => {
  it('looks each coordinator up once, not four times a transaction', async () => {
    const c = cluster();
    const eos = manager(c.fake);
    await eos.initProducerId();
    for (let i = 1; i <= 5; i += 1) await transaction(eos, i);
    expect(c.lookups).toEqual(['transaction tx', 'group stage']);
    expect(c.calls.filter((call) => call === 'endTxn@1')).toHaveLength(5);
  });

  it('keeps the coordinator through an error that does not say it moved', async () => {
    const { c, eos } = await afterOneTransaction();
    c.refuse('addPartitionsToTxn', 'INVALID_TXN_STATE');
    await refusedFirstRequest(eos, 'INVALID_TXN_STATE');
    await transaction(eos, 2);
    expect(c.lookups).toEqual(['transaction tx', 'group stage']);
  });

  it('forgets the transaction coordinator when it says it is not, and finds the new one', async () => {
    const { c, eos } = await afterOneTransaction();
    c.move();
    await refusedFirstRequest(eos, 'NOT_COORDINATOR_FOR_GROUP', 1);
    await transaction(eos, 2);
    expect(c.lookups.filter((l) => l === 'transaction tx')).toHaveLength(2);
    // After its one refusal, no transaction request went to node 1 again (the abort had nothing to
    // end: no partition had joined the transaction).
    const afterRefusal = c.calls.slice(c.calls.lastIndexOf('addPartitionsToTxn@1') + 1);
    expect(afterRefusal.filter((call) => !call.startsWith('txnOffsetCommit'))).toEqual([
      'addPartitionsToTxn@2',
      'addOffsetsToTxn@2',
      'endTxn@2',
    ]);
  });

  it('forgets the group coordinator when the offset commit is refused, and retries on the new one', async () => {
    const { c, eos } = await afterOneTransaction();
    c.move();
    await refusedFirstRequest(eos, 'NOT_COORDINATOR_FOR_GROUP');
    const before = c.calls.length;
    await transaction(eos, 2);
    expect(c.calls.slice(before)).toEqual([
      'addPartitionsToTxn@2',
      'addOffsetsToTxn@2',
      'txnOffsetCommit@1',
      'txnOffsetCommit@2',
      'endTxn@2',
    ]);
    expect(c.lookups.filter((l) => l === 'group stage')).toHaveLength(2);
  });

  it('retries a CONCURRENT_TRANSACTIONS refusal of the first request within milliseconds', async () => {
    const { c, eos } = await afterOneTransaction();
    c.refuse('addPartitionsToTxn', 'CONCURRENT_TRANSACTIONS', 3);
    const before = c.calls.length;
    // The manager's timers are the test's: the three retries wait 1 + 2 + 4 ms of them, far
    // below the producer's first retry, and the transaction commits with no more time passing.
    vi.useFakeTimers();
    let committed = false;
    const done = transaction(eos, 2).then(() => (committed = true));
    await vi.advanceTimersByTimeAsync(6);
    expect(committed).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(committed).toBe(true);
    await done;
    vi.useRealTimers();
    expect(c.calls.slice(before)).toEqual([
      'addPartitionsToTxn@1',
      'addPartitionsToTxn@1',
      'addPartitionsToTxn@1',
      'addPartitionsToTxn@1',
      'addOffsetsToTxn@1',
      'txnOffsetCommit@1',
      'endTxn@1',
    ]);
    c.refuse('addOffsetsToTxn', 'CONCURRENT_TRANSACTIONS', 1);
    eos.beginTransaction();
    await eos.sendOffsets({
      consumerGroupId: 'stage',
      topics: [{ topic: 'in', partitions: [{ partition: 0, offset: '3' }] }],
    });
    await eos.commit();
    expect(c.calls.filter((call) => call === 'addOffsetsToTxn@1')).toHaveLength(4);
    expect(c.lookups).toEqual(['transaction tx', 'group stage']);
  });

  it('hands a refusal that outlasts the quick retries to the caller, whose retrier goes on', async () => {
    const c = cluster();
    const eos = manager(c.fake);
    await eos.initProducerId();
    c.refuse('addPartitionsToTxn', 'CONCURRENT_TRANSACTIONS', 5);
    eos.beginTransaction();
    await expect(
      eos.addPartitionsToTransaction([{ topic: 'out', partitions: [{ partition: 0 }] }]),
    ).rejects.toMatchObject({ type: 'CONCURRENT_TRANSACTIONS' });
    expect(c.calls.filter((call) => call === 'addPartitionsToTxn@1')).toHaveLength(5);
  });
});
