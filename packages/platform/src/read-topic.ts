/**
 * Reading a topic as an operator does: every record of a time window, decoded (for `toolgate
 * stats` and the demo's closing table), or every record from now on (for `toolgate tail`). The
 * reader joins a throwaway consumer group, moves each partition to where the window starts, and
 * commits nothing; it reads committed transactions only, as every gate consumer does.
 */
import { randomUUID } from 'node:crypto';
import type { Codec } from './codec.js';
import { Fault, type FaultCode } from './fault.js';
import { causeChain, type Bus, type BusMessage, type PartitionOffset } from './kafka/index.js';

/** One record read back, decoded. */
export interface ReadRecord {
  readonly topic: string;
  readonly partition: number;
  readonly offset: string;
  /** The record's timestamp, ms since the epoch. */
  readonly timestamp: number;
  readonly key: string | null;
  readonly headers: Readonly<Record<string, string>>;
  /** The decoded value, or undefined when the bytes did not decode. */
  readonly value: unknown;
  /** Why the bytes did not decode; absent when they did. */
  readonly decodeError?: string;
}

/** Options of {@link readTopicWindow} and {@link followTopic}. */
export interface ReadTopicOptions {
  /** Full topic name. */
  readonly topic: string;
  /** Called once per record, in offset order within a partition. */
  readonly onRecord: (record: ReadRecord) => void;
  /** Prefix of the throwaway group's id (e.g. the group prefix of the deployment). */
  readonly groupPrefix?: string;
}

/** Options of {@link readTopicWindow}. */
export interface ReadWindowOptions extends ReadTopicOptions {
  /** Start of the window, ms since the epoch; 0 (default) reads from the earliest record kept. */
  readonly sinceMs?: number;
  /**
   * Gives up when the end of the window is not reached in this long (an open transaction holds
   * read-committed readers back until it ends). Default 30000.
   */
  readonly timeoutMs?: number;
}

/** Fault codes of this module. */
export const READ_TOPIC_FAULTS = { timedOut: 'read_timed_out' } as const satisfies Record<
  string,
  FaultCode
>;

/**
 * Reads every committed record of `topic` written from `sinceMs` until the call, then stops.
 * Resolves with how many records were read.
 *
 * @throws Fault `read_timed_out` when the window's end is not reached within `timeoutMs`, or the
 *   bus's faults when Kafka cannot be reached.
 */
export async function readTopicWindow(
  bus: Bus,
  codec: Codec,
  options: ReadWindowOptions,
): Promise<number> {
  const { topic } = options;
  const [starts, ends] = await Promise.all([
    bus.offsetsAt(topic, options.sinceMs ?? 0),
    bus.latestOffsets(topic),
  ]);
  const remaining = new Map<number, bigint>();
  for (const end of ends) {
    const start = BigInt(starts.find((s) => s.partition === end.partition)?.offset ?? end.offset);
    if (start < BigInt(end.offset)) remaining.set(end.partition, BigInt(end.offset));
  }
  if (remaining.size === 0) return 0;
  let count = 0;
  const timeoutMs = options.timeoutMs ?? 30_000;
  const consumer = bus.consumer({
    groupId: throwawayGroup(options.groupPrefix),
    maxWaitTimeMs: 100,
  });
  await consumer.connect();
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () =>
          reject(
            new Fault(
              READ_TOPIC_FAULTS.timedOut,
              `reading ${topic} did not reach the end of the window in ${timeoutMs} ms (partitions ${[...remaining.keys()].join(', ')} behind; an open transaction holds committed readers back until it ends)`,
            ),
          ),
        timeoutMs,
      );
      const done = () => {
        clearTimeout(timer);
        resolve();
      };
      consumer.onGroupJoin(() => seekAll(consumer, starts));
      consumer.onCrash((fault, restarting) => {
        if (!restarting) {
          clearTimeout(timer);
          reject(fault);
        }
      });
      consumer
        .subscribe([topic])
        .then(() =>
          consumer.run(async (batch) => {
            const end = remaining.get(batch.partition);
            for (const m of batch.messages) {
              if (end === undefined || BigInt(m.offset) >= end) break;
              count += 1;
              options.onRecord(await decodeRecord(codec, topic, batch.partition, m));
            }
            if (batch.messages.length > 0 || batch.lastOffset() !== '-1')
              batch.resolveOffset(batch.lastOffset());
            if (end !== undefined && BigInt(batch.lastOffset()) + 1n >= end) {
              remaining.delete(batch.partition);
              if (remaining.size === 0) done();
            }
          }),
        )
        .catch((error: unknown) => {
          clearTimeout(timer);
          reject(error instanceof Error ? error : new Error(String(error)));
        });
    });
  } finally {
    await consumer.disconnect();
  }
  return count;
}

/** A running {@link followTopic}. */
export interface Following {
  /** Stops reading and leaves the group. */
  stop(): Promise<void>;
}

/** Options of {@link followTopic}. */
export interface FollowTopicOptions extends ReadTopicOptions {
  /** Where to start, ms since the epoch. Default: the call. */
  readonly sinceMs?: number;
  /**
   * Told, once, when reading fails after kafkajs's retries (Kafka or the registry cannot be
   * read); the reader does not go on by itself. Without it, kafkajs restarts the consumer when
   * the fault is retriable, silently, and a fault that is not leaves it stopped.
   */
  readonly onFailure?: (error: Fault) => void;
}

/**
 * Reads every committed record of `topic` written from `sinceMs` (default: the call) on, until
 * stopped. Records written after the call are never missed: the start offsets are taken before
 * the group is joined.
 */
export async function followTopic(
  bus: Bus,
  codec: Codec,
  options: FollowTopicOptions,
): Promise<Following> {
  const { topic } = options;
  const starts =
    options.sinceMs === undefined
      ? await bus.latestOffsets(topic)
      : await bus.offsetsAt(topic, options.sinceMs);
  const consumer = bus.consumer({
    groupId: throwawayGroup(options.groupPrefix),
    maxWaitTimeMs: 200,
  });
  await consumer.connect();
  consumer.onGroupJoin(() => seekAll(consumer, starts));
  const { onFailure } = options;
  if (onFailure !== undefined) {
    let told = false;
    consumer.onCrash((fault) => {
      if (!told) onFailure(ownFault(fault));
      told = true;
    });
  }
  await consumer.subscribe([topic]);
  await consumer.run(async (batch) => {
    for (const m of batch.messages) {
      options.onRecord(await decodeRecord(codec, topic, batch.partition, m));
    }
    if (batch.messages.length > 0) batch.resolveOffset(batch.lastOffset());
  });
  return { stop: () => consumer.disconnect() };
}

/**
 * The fault a crash is about: the one a record's handling threw (the registry could not be read),
 * which kafkajs wraps once its retries are spent, else the crash's own.
 */
function ownFault(crash: Fault): Fault {
  const handled = causeChain(crash.cause).find((e) => e instanceof Fault);
  return handled instanceof Fault ? handled : crash;
}

function throwawayGroup(prefix = ''): string {
  return `${prefix}toolgate.reader.${randomUUID()}`;
}

function seekAll(
  consumer: { seek(topic: string, partition: number, offset: string): void },
  offsets: readonly PartitionOffset[],
): void {
  for (const o of offsets) consumer.seek(o.topic, o.partition, o.offset);
}

async function decodeRecord(
  codec: Codec,
  topic: string,
  partition: number,
  m: BusMessage,
): Promise<ReadRecord> {
  const decoded = await codec.decode(m.value, { plainJsonAllowed: true });
  const base = {
    topic,
    partition,
    offset: m.offset,
    timestamp: Number(m.timestamp),
    key: m.key === null ? null : m.key.toString('utf8'),
    headers: m.headers,
  };
  return 'value' in decoded
    ? { ...base, value: decoded.value }
    : { ...base, value: undefined, decodeError: decoded.error };
}
