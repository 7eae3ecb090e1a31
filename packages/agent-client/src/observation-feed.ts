/**
 * The agent client's one consumer of its tenant's observations topic: a group of its own,
 * read-committed, that starts where each partition ended before it joined and never commits (an
 * agent process that restarts has no waiters for what it missed). Every observation that verifies
 * as the gate's goes to one callback; any other record is dropped before it is even decoded,
 * counted and logged without its content.
 */
import type { AdapterLogger } from '@toolgate/platform/adapter-logger';
import type { Codec } from '@toolgate/platform/codec';
import type { Bus, BusBatch, BusConsumer, BusMessage } from '@toolgate/platform/kafka';
import {
  OBSERVATION_SIGNATURE_HEADER,
  type Observation,
  type ObservationVerifier,
} from '@toolgate/shared';
import { AGENT_CLIENT_ERRORS, AgentClientError } from './agent-client-error.js';
import { isObservation } from './is-observation.js';

/** Options of {@link startObservationFeed}. */
export interface ObservationFeedOptions {
  readonly bus: Bus;
  readonly codec: Codec;
  /** The full name of the observations topic. */
  readonly topic: string;
  /** The consumer group, unique to this client. */
  readonly groupId: string;
  readonly logger: AdapterLogger;
  /** How long to wait for the group join before giving up, in ms. */
  readonly joinTimeoutMs: number;
  /** True when a record's signature is the gate's, for exactly its bytes on its topic. */
  readonly verify: ObservationVerifier;
  /** Receives every observation, in partition order. */
  readonly onObservation: (observation: Observation) => void;
  /** Told of each record dropped because it did not verify. */
  readonly onForgery: () => void;
  /** Told once when the consumer stopped for good. */
  readonly onFailure: (error: Error) => void;
}

/** A running feed. */
export interface ObservationFeed {
  /** Leaves the group and closes the consumer. Idempotent. */
  stop(): Promise<void>;
}

/**
 * Measures where the topic ends, joins the group and seeks every assigned partition there, then
 * resolves: whatever is written after this resolves reaches `onObservation`. The seek is repeated
 * after every rejoin, from where the feed had read to, so a rebalance loses nothing either.
 *
 * @throws AgentClientError `join_timeout` when the group is not joined within `joinTimeoutMs`; a
 * Fault when Kafka cannot be reached or the topic does not exist (the gate creates it).
 */
export async function startObservationFeed(
  options: ObservationFeedOptions,
): Promise<ObservationFeed> {
  const positions = new Map<number, string>();
  for (const p of await options.bus.latestOffsets(options.topic))
    positions.set(p.partition, p.offset);
  const consumer = options.bus.consumer({ groupId: options.groupId, readCommitted: true });
  const stop = memoised(() => consumer.disconnect());
  try {
    const joined = joinedWithSeek(consumer, options, positions);
    consumer.onCrash((error, restarting) => {
      options.logger.error({ err: error, restarting }, 'the observation consumer crashed');
      if (!restarting) options.onFailure(error);
    });
    await consumer.connect();
    await consumer.subscribe([options.topic], { fromBeginning: false });
    await consumer.run((batch) => readBatch(batch, options, positions));
    await joinedWithin(options.joinTimeoutMs, joined, options.groupId);
  } catch (error) {
    await stop().catch(() => undefined);
    throw error;
  }
  return { stop };
}

/** Resolves at the first group join; every join seeks each assigned partition to its position. */
function joinedWithSeek(
  consumer: BusConsumer,
  options: ObservationFeedOptions,
  positions: ReadonlyMap<number, string>,
): Promise<void> {
  return new Promise((resolve) => {
    consumer.onGroupJoin((assignment) => {
      for (const partition of assignment[options.topic] ?? []) {
        // A partition the topic did not have when the feed started holds only newer records.
        consumer.seek(options.topic, partition, positions.get(partition) ?? '0');
      }
      options.logger.debug({ groupId: options.groupId, assignment }, 'observation feed joined');
      resolve();
    });
  });
}

async function joinedWithin(ms: number, joined: Promise<void>, groupId: string): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const message = `the observation consumer ${groupId} did not join its group within ${ms} ms`;
      reject(new AgentClientError(AGENT_CLIENT_ERRORS.joinTimeout, message));
    }, ms);
  });
  try {
    await Promise.race([joined, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

async function readBatch(
  batch: BusBatch,
  options: ObservationFeedOptions,
  positions: Map<number, string>,
): Promise<void> {
  for (const message of batch.messages) {
    if (!batch.isRunning() || batch.isStale()) return;
    // A registry fault is thrown on: kafkajs retries the batch from the last resolved offset.
    await readOne(message, batch, options);
    batch.resolveOffset(message.offset);
    positions.set(batch.partition, (BigInt(message.offset) + 1n).toString());
  }
}

async function readOne(message: BusMessage, batch: BusBatch, options: ObservationFeedOptions) {
  const where = { topic: batch.topic, partition: batch.partition, offset: message.offset };
  const signature = message.headers[OBSERVATION_SIGNATURE_HEADER];
  if (!options.verify(batch.topic, message.value, signature)) {
    options.onForgery();
    options.logger.warn(
      { ...where, signature: signature === undefined ? 'none' : 'wrong' },
      'dropped a record of the observations topic that the gate did not sign',
    );
    return;
  }
  const decoded = await options.codec.decode(message.value, { plainJsonAllowed: false });
  if ('error' in decoded) {
    options.logger.warn({ ...where, error: decoded.error }, 'skipped an undecodable observation');
  } else if (!isObservation(decoded.value)) {
    options.logger.warn(where, 'skipped a record that is not an observation');
  } else {
    options.onObservation(decoded.value);
  }
}

function memoised(work: () => Promise<void>): () => Promise<void> {
  let done: Promise<void> | undefined;
  return () => (done ??= work());
}
