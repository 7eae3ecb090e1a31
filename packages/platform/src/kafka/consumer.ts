/**
 * Consumers: batches of committed records whose offsets only a transaction commits, and the
 * partition assigner for groups whose members subscribe to different topics.
 */
import kafkajs from 'kafkajs';
import type {
  Assigner,
  Consumer,
  EachBatchPayload,
  Kafka,
  KafkaMessage,
  PartitionAssigner,
} from 'kafkajs';
import { assignBySubscription } from './assign-by-subscription.js';
import type { BusBatch, BusConsumer, BusConsumerOptions, BusMessage } from './bus-types.js';
import { attempt } from './attempt.js';
import { kafkaFault } from './kafka-fault.js';
import { headersFromRecord } from './record-headers.js';

const { AssignerProtocol, PartitionAssigners } = kafkajs;

/** The protocol name of {@link bySubscription}, as members announce it to the coordinator. */
const BY_SUBSCRIPTION_ASSIGNER = 'ToolgateBySubscription';

/**
 * A partition assigner for groups whose members subscribe to different topics (see
 * {@link assignBySubscription}). kafkajs hands an assigner only the leader's own topics, so this
 * one reads every member's from its metadata and looks their partitions up itself.
 */
const bySubscription: PartitionAssigner = ({ cluster }): Assigner => ({
  name: BY_SUBSCRIPTION_ASSIGNER,
  version: 0,
  async assign({ members }) {
    const subscribed = members.map(({ memberId, memberMetadata }) => ({
      memberId,
      topics: AssignerProtocol.MemberMetadata.decode(memberMetadata)?.topics ?? [],
    }));
    const topics = [...new Set(subscribed.flatMap((m) => m.topics))];
    await cluster.addMultipleTargetTopics(topics);
    const partitions = new Map(
      topics.map((t) => [t, cluster.findTopicPartitionMetadata(t).map((p) => p.partitionId)]),
    );
    const assigned = assignBySubscription(subscribed, partitions);
    return subscribed.map(({ memberId }) => ({
      memberId,
      memberAssignment: AssignerProtocol.MemberAssignment.encode({
        version: 0,
        assignment: Object.fromEntries(
          Object.entries(assigned.get(memberId) ?? {}).map(([t, ids]) => [t, [...ids]]),
        ),
        userData: Buffer.alloc(0),
      }),
    }));
  },
  protocol({ topics }) {
    return {
      name: BY_SUBSCRIPTION_ASSIGNER,
      metadata: AssignerProtocol.MemberMetadata.encode({
        version: 0,
        topics,
        userData: Buffer.alloc(0),
      }),
    };
  },
});

function toBusMessage(m: KafkaMessage): BusMessage {
  return {
    offset: m.offset,
    key: m.key,
    value: m.value,
    headers: headersFromRecord(m.headers),
    timestamp: m.timestamp,
  };
}

function toBusBatch(p: EachBatchPayload): BusBatch {
  const { batch } = p;
  return {
    topic: batch.topic,
    partition: batch.partition,
    highWatermark: batch.highWatermark,
    messages: batch.messages.map(toBusMessage),
    lastOffset: () => batch.lastOffset(),
    resolveOffset: (offset) => p.resolveOffset(offset),
    heartbeat: () => p.heartbeat(),
    isRunning: () => p.isRunning(),
    isStale: () => p.isStale(),
  };
}

export function wrapConsumer(consumer: Consumer, options: BusConsumerOptions): BusConsumer {
  const { GROUP_JOIN, CRASH } = consumer.events;
  return {
    connect: () => attempt(`connect consumer ${options.groupId}`, () => consumer.connect()),
    subscribe: (topics, { fromBeginning = true } = {}) =>
      attempt(`subscribe ${options.groupId}`, () =>
        consumer.subscribe({ topics: [...topics], fromBeginning }),
      ),
    run: (eachBatch) =>
      attempt(`run consumer ${options.groupId}`, () =>
        consumer.run({
          autoCommit: false,
          eachBatchAutoResolve: false,
          partitionsConsumedConcurrently: Math.max(1, options.partitionsConcurrently ?? 1),
          eachBatch: (payload) => eachBatch(toBusBatch(payload)),
        }),
      ),
    pause: (topic, partition) => consumer.pause([{ topic, partitions: [partition] }]),
    resume: (topic, partition) => consumer.resume([{ topic, partitions: [partition] }]),
    seek: (topic, partition, offset) => consumer.seek({ topic, partition, offset }),
    onGroupJoin: (listener) =>
      consumer.on(GROUP_JOIN, (event) => listener(event.payload.memberAssignment)),
    onCrash: (listener) =>
      consumer.on(CRASH, (event) =>
        listener(
          kafkaFault(event.payload.error, `consume as ${options.groupId}`),
          event.payload.restart,
        ),
      ),
    disconnect: () =>
      attempt(`disconnect consumer ${options.groupId}`, () => consumer.disconnect()),
  };
}

export function newConsumer(kafka: Kafka, options: BusConsumerOptions): Consumer {
  const sessionTimeout = options.sessionTimeoutMs ?? 30_000;
  const maxWaitTimeInMs = options.maxWaitTimeMs ?? 500;
  return kafka.consumer({
    groupId: options.groupId,
    readUncommitted: !(options.readCommitted ?? true),
    sessionTimeout,
    heartbeatInterval:
      options.heartbeatIntervalMs ?? Math.min(3_000, Math.floor(sessionTimeout / 3)),
    ...(options.rebalanceTimeoutMs === undefined
      ? {}
      : { rebalanceTimeout: options.rebalanceTimeoutMs }),
    maxWaitTimeInMs,
    minBytes: options.minBytes ?? 1,
    idleMaxWaitTimeInMs: options.idleMaxWaitTimeMs ?? maxWaitTimeInMs,
    busyMinBytes: options.busyMinBytes ?? 1,
    maxBytesPerPartition: options.maxBytesPerPartition ?? 1_048_576,
    allowAutoTopicCreation: false,
    // Members may subscribe to different topics (execute's halves); round robin stays listed so
    // a group can still form with members of an earlier build during a rolling upgrade.
    partitionAssigners: [bySubscription, PartitionAssigners.roundRobin],
  });
}
