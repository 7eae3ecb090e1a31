/** What a stage's handler sees and returns, and what a running stage loop offers. */
import type { FaultCode } from '../fault-codes.js';
import type { GroupMembership } from '../group-membership.js';
import type { StageLoopState } from './loop-state.js';

/** One consumed message as a handler sees it. */
export interface Incoming {
  readonly topic: string;
  readonly partition: number;
  /** Offset as a decimal string. */
  readonly offset: string;
  /** The record key as UTF-8, or null. */
  readonly key: string | null;
  /** Headers as UTF-8; a name that appears more than once is left out (fails closed). */
  readonly headers: Readonly<Record<string, string>>;
  /** The decoded value; undefined when the bytes could not be decoded. */
  readonly value: unknown;
  /** The registry id of the schema the value was written under; absent for plain JSON. */
  readonly schemaId?: number;
  /** Why the bytes could not be decoded (`undecodable: …`); absent when they could. */
  readonly decodeError?: string;
  /** The record's bytes as they arrived (null for a tombstone), e.g. for quarantine. */
  readonly raw: Buffer | null;
  /** When this loop read the message. */
  readonly receivedAt: Date;
  /**
   * The record's timestamp in ms since the epoch: on a topic with `message.timestamp.type`
   * `LogAppendTime` (the proposals topic), when the broker appended it, a time the writer cannot
   * set. Absent when the record's timestamp is not a non-negative integer.
   */
  readonly timestampMs?: number;
}

/** A message a handler asks the loop to produce, encoded in the wire format by the codec. */
export interface EncodedOutgoing {
  /** Full topic name. */
  readonly topic: string;
  readonly key: string | null;
  readonly value: unknown;
  readonly headers?: Readonly<Record<string, string>>;
  /** Registry subject of the value's schema; defaults to `<topic>-value`. */
  readonly subject?: string;
  /** Headers computed from the encoded bytes (an integrity tag), added to `headers`. */
  readonly sign?: (bytes: Buffer) => Readonly<Record<string, string>>;
}

/** Bytes produced as they are, with no schema: only for quarantining undecodable input. */
export interface RawOutgoing {
  readonly topic: string;
  readonly key: string | null;
  readonly raw: Buffer;
  readonly headers?: Readonly<Record<string, string>>;
}

/** A message to produce. */
export type Outgoing = EncodedOutgoing | RawOutgoing;

/** Callbacks the loop reports to; all optional. Times are in seconds. */
export interface StageLoopMetrics {
  /** A message was read from `topic`. */
  messageIn?(topic: string): void;
  /** One message was decoded, handled and encoded in `seconds`. */
  handled?(seconds: number): void;
  /** One chunk of `size` messages was handled and committed in `seconds`. */
  batch?(seconds: number, size: number): void;
  /**
   * One transaction, carrying `chunks` shares (chunks or produce-only sends), took `seconds` and
   * wrote to `partitions` partitions (0 when it failed; the group's offsets partition not counted).
   */
  transaction?(seconds: number, chunks: number, partitions: number): void;
  /**
   * After a commit, and when the partition is held back by a fault: messages of the partition not
   * yet consumed by the group.
   */
  lag?(topic: string, partition: number, lag: number): void;
  /** The partition went to another member of the group: its lag is no longer this loop's. */
  forgetLag?(topic: string, partition: number): void;
  /** A fault was caught. */
  fault?(code: FaultCode): void;
  /** The loop entered `state` (it starts in `starting`). */
  state?(state: StageLoopState): void;
}

/** One input topic of a stage. */
export interface StageTopic {
  /** Full topic name. */
  readonly name: string;
  /** True for topics others write (proposals, approvals, results): plain JSON is accepted. */
  readonly plainJsonAllowed: boolean;
}

/** A running stage loop. */
export interface StageLoop {
  /** True once the consumer joined its group with at least one partition, until it stops. */
  ready(): boolean;
  /** Where the loop is in its life: `running` from the start until a stop or a crash. */
  state(): StageLoopState;
  /**
   * Its instance and group, and the partitions the last group join gave it: none before the
   * first join, after its consumer crashed (until it rejoins) and once it stops.
   */
  membership(): GroupMembership;
  /**
   * Produces timer-driven outputs (sweepers) in one transaction of the loop's own producer.
   * Throws a retriable Fault when Kafka or the registry is unavailable (nothing was written),
   * a non-retriable one for an invalid message.
   */
  produceTransactional(outgoing: readonly Outgoing[]): Promise<void>;
  /** Stops consuming, commits or abandons the batch in hand, leaves the group. Idempotent. */
  stop(): Promise<void>;
}
