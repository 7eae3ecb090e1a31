/**
 * Producers and their transactions: idempotent (acks = all, one request in flight), optionally
 * transactional; a send larger than one request carries is cut into several (see `requestsOf`).
 */
import type { Kafka, Producer, Transaction } from 'kafkajs';
import kafkajs from 'kafkajs';
import type {
  BusProducer,
  BusProducerOptions,
  BusTransaction,
  OutRecord,
  PartitionOffset,
  TopicPartition,
} from './bus-types.js';
import { attempt } from './attempt.js';
import { requestsOf } from './record-size.js';

const { Partitioners } = kafkajs;

/** Groups records by topic, keeping their order. */
function topicMessages(records: readonly OutRecord[]) {
  const byTopic = new Map<
    string,
    { key: string | null; value: Buffer; headers?: Record<string, string> }[]
  >();
  for (const r of records) {
    const list = byTopic.get(r.topic) ?? [];
    list.push(
      r.headers === undefined
        ? { key: r.key, value: r.value }
        : { key: r.key, value: r.value, headers: { ...r.headers } },
    );
    byTopic.set(r.topic, list);
  }
  return [...byTopic].map(([topic, messages]) => ({ topic, messages }));
}

function wrapTransaction(tx: Transaction): BusTransaction {
  return {
    send: async (records) => {
      const written: TopicPartition[] = [];
      // One request after another, so that no partition's batch outgrows what the broker takes.
      for (const request of requestsOf(records)) {
        const answer = await attempt('send in a transaction', () =>
          tx.sendBatch({ acks: -1, topicMessages: topicMessages(request) }),
        );
        for (const m of answer) written.push({ topic: m.topicName, partition: m.partition });
      }
      return written;
    },
    sendOffsets: (groupId, offsets) =>
      attempt('add offsets to a transaction', () =>
        tx.sendOffsets({ consumerGroupId: groupId, topics: offsetTopics(offsets) }),
      ),
    commit: () => attempt('commit a transaction', () => tx.commit()),
    abort: () => attempt('abort a transaction', () => tx.abort()),
    isActive: () => tx.isActive(),
  };
}

function offsetTopics(offsets: readonly PartitionOffset[]) {
  const byTopic = new Map<string, { partition: number; offset: string }[]>();
  for (const { topic, partition, offset } of offsets) {
    byTopic.set(topic, [...(byTopic.get(topic) ?? []), { partition, offset }]);
  }
  return [...byTopic].map(([topic, partitions]) => ({ topic, partitions }));
}

/**
 * Connects; a transactional producer also opens and drops an empty transaction, because kafkajs
 * asks for the transactional producer id (which fences older producers with the same id and
 * settles their open transaction) only on the first `transaction()`, not on `connect()`.
 */
async function connectProducer(producer: Producer, transactional: boolean): Promise<void> {
  await producer.connect();
  if (transactional) await (await producer.transaction()).abort();
}

export function wrapProducer(producer: Producer, transactional: boolean): BusProducer {
  return {
    connect: () => attempt('connect a producer', () => connectProducer(producer, transactional)),
    send: async (records) => {
      for (const request of requestsOf(records)) {
        await attempt('send', () =>
          producer.sendBatch({ acks: -1, topicMessages: topicMessages(request) }),
        );
      }
    },
    transaction: async () =>
      wrapTransaction(await attempt('begin a transaction', () => producer.transaction())),
    disconnect: () => attempt('disconnect a producer', () => producer.disconnect()),
  };
}

export function newProducer(kafka: Kafka, options: BusProducerOptions): Producer {
  const base = {
    idempotent: true,
    maxInFlightRequests: 1,
    allowAutoTopicCreation: false,
    createPartitioner: Partitioners.DefaultPartitioner,
    // The first request of a transaction begun right after a commit is often refused with
    // CONCURRENT_TRANSACTIONS for a few milliseconds; kafkajs's default first retry (300 ms) made
    // that about 50 ms per transaction on average. The patched transaction manager retries it after
    // 1, 2, 4 and 8 ms; what outlasts that comes here: 20 ms doubling, 8 times, about 5 s in all.
    retry: { initialRetryTime: 20, retries: 8 },
  };
  return options.transactionalId === undefined
    ? kafka.producer(base)
    : kafka.producer({
        ...base,
        transactionalId: options.transactionalId,
        transactionTimeout: options.transactionTimeoutMs ?? 15_000,
      });
}
