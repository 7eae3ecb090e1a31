/**
 * kafkajs 2.2.4 remembers, across the retries of one send, which brokers answered, not which
 * partitions: when a partition's leader dies and its successor is a broker that had already
 * answered for other partitions of the same send, the retry sends nothing to it, and the send
 * resolves without that partition's messages ever written, under `acks=all` (kafkajs#1303; the
 * three-node stack's kafka-nodes test lost one write so). `patches/kafkajs+2.2.4.patch` keeps the
 * answers by partition. These tests drive the installed `sendMessages` against a cluster whose
 * leader of partition 1 fails once and moves, so they fail if the patch is not applied.
 */
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';

interface Message {
  readonly partition: number;
  readonly value: string;
}
interface TopicMessages {
  readonly topic: string;
  readonly messages: readonly Message[];
}
interface ProduceRequest {
  readonly topicData: {
    readonly topic: string;
    readonly partitions: { readonly partition: number; readonly messages: Message[] }[];
  }[];
}
type Send = (request: {
  acks: number;
  timeout: number;
  topicMessages: readonly TopicMessages[];
}) => Promise<{ topicName: string; partition: number; baseOffset: string }[]>;

const require = createRequire(import.meta.url);
const createSendMessages = require('kafkajs/src/producer/sendMessages.js') as (options: {
  logger: Record<'debug' | 'info' | 'warn' | 'error', () => void>;
  cluster: unknown;
  partitioner: (args: { message: Message }) => number;
  eosManager: unknown;
  retrier: unknown;
}) => Send;
const createRetry = require('kafkajs/src/retry/index.js') as (options: object) => unknown;

const TOPIC = 'writes';
const quiet = { debug() {}, info() {}, warn() {}, error() {} };

/** A protocol error as kafkajs makes them (`type` names the error code). */
function notLeader(): Error {
  const error = Object.assign(new Error('This server is not the leader for that partition'), {
    type: 'NOT_LEADER_FOR_PARTITION',
    retriable: true,
  });
  error.name = 'KafkaJSProtocolError';
  return error;
}

/**
 * Three brokers and three partitions, partition p led by node p + 1, until node 2 (partition 1's
 * leader) refuses a produce as no longer the leader: from the next metadata refresh on, node 1
 * leads partition 1. Each broker records the partitions and values written to it.
 */
function cluster() {
  const leaders = new Map([
    [0, 1],
    [1, 2],
    [2, 3],
  ]);
  const written: { node: number; partition: number; values: string[] }[] = [];
  let moved = false;
  const broker = (nodeId: number) => ({
    nodeId,
    produce: ({ topicData }: ProduceRequest) => {
      if (nodeId === 2) {
        moved = true;
        return Promise.reject(notLeader());
      }
      const partitions = topicData.flatMap((t) => t.partitions);
      for (const { partition, messages } of partitions)
        written.push({ node: nodeId, partition, values: messages.map((m) => m.value) });
      return Promise.resolve({
        topics: [
          {
            topicName: TOPIC,
            partitions: partitions.map(({ partition }) => ({
              partition,
              errorCode: 0,
              baseOffset: '0',
            })),
          },
        ],
      });
    },
  });
  const brokers = new Map([1, 2, 3].map((id) => [id, broker(id)]));
  return {
    written,
    cluster: {
      addMultipleTargetTopics: () => Promise.resolve(),
      refreshMetadataIfNecessary: () => Promise.resolve(),
      refreshMetadata: () => {
        if (moved) leaders.set(1, 1);
        return Promise.resolve();
      },
      isConnected: () => true,
      findTopicPartitionMetadata: () =>
        [...leaders].map(([partitionId, leader]) => ({ partitionId, leader })),
      findLeaderForPartitions: (_topic: string, partitions: string[]) => {
        const byLeader: Record<number, number[]> = {};
        for (const id of partitions.map(Number)) {
          const leader = leaders.get(id) ?? -1;
          byLeader[leader] = [...(byLeader[leader] ?? []), id];
        }
        return byLeader;
      },
      findBroker: ({ nodeId }: { nodeId: string }) => Promise.resolve(brokers.get(Number(nodeId))),
    },
  };
}

/** An idempotent, non-transactional producer's sequence bookkeeping. */
function eosManager() {
  const sequences = new Map<number, number>();
  return {
    isTransactional: () => false,
    getProducerId: () => 7,
    getProducerEpoch: () => 0,
    getTransactionalId: () => undefined,
    acquireBrokerLock: () => Promise.resolve(),
    releaseBrokerLock: () => Promise.resolve(),
    getSequence: (_topic: string, partition: number) => sequences.get(partition) ?? 0,
    updateSequence: (_topic: string, partition: number, increment: number) =>
      sequences.set(partition, (sequences.get(partition) ?? 0) + increment),
  };
}

function sender() {
  const { cluster: fake, written } = cluster();
  const send = createSendMessages({
    logger: quiet,
    cluster: fake,
    partitioner: ({ message }) => message.partition,
    eosManager: eosManager(),
    retrier: createRetry({ retries: 3, initialRetryTime: 1, maxRetryTime: 5 }),
  });
  return { send, written };
}

const oneToEach = [0, 1, 2].map((partition) => ({ partition, value: `during-${partition}` }));

describe("kafkajs's send, when a partition's leader moves to a broker that already answered", () => {
  it('sends that partition again, to its new leader, before it resolves', async () => {
    const { send, written } = sender();
    const answers = await send({
      acks: -1,
      timeout: 1000,
      topicMessages: [{ topic: TOPIC, messages: oneToEach }],
    });
    expect(written).toContainEqual({ node: 1, partition: 1, values: ['during-1'] });
    expect(answers.map((a) => a.partition).sort()).toEqual([0, 1, 2]);
  });

  it('writes each other partition once', async () => {
    const { send, written } = sender();
    await send({ acks: -1, timeout: 1000, topicMessages: [{ topic: TOPIC, messages: oneToEach }] });
    const partitions = written.map((w) => w.partition).sort();
    expect(partitions).toEqual([0, 1, 2]);
  });

  it('under acks=0 also sends it again, and answers nothing', async () => {
    const { send, written } = sender();
    const answers = await send({
      acks: 0,
      timeout: 1000,
      topicMessages: [{ topic: TOPIC, messages: oneToEach }],
    });
    expect(written.map((w) => w.partition).sort()).toEqual([0, 1, 2]);
    expect(answers).toEqual([]);
  });
});
