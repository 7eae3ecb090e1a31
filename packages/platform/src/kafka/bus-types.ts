/**
 * What the gate asks of Kafka, as types: the {@link Bus} with its producers, transactions and
 * consumers, and the records they carry. The kafkajs adapter behind it is {@link createBus}.
 */
import type { AdapterLogger } from '../adapter-logger.js';
import type { AclBinding } from '../acls.js';
import type { Fault } from '../fault.js';
import type { TopicSpec } from '../topics.js';
import type { KafkaSecurity } from './kafka-security.js';

/** Options of `createBus`. */
export interface BusOptions {
  /** `host:port` of one or more brokers (TOOLGATE_KAFKA_BROKERS). */
  readonly brokers: readonly string[];
  /** The client id brokers log and quota by, e.g. `toolgate.validate`. */
  readonly clientId: string;
  /**
   * Who this client is to Kafka (SASL, TLS). Default: anonymous over plaintext, which a secured
   * cluster refuses; every Toolgate process passes its configured identity.
   */
  readonly security?: KafkaSecurity;
  /** Where kafkajs's warnings and errors go, with field `kafkajs` naming its namespace. */
  readonly logger: AdapterLogger;
  /** Bound on opening a connection, in ms. Default 3000. */
  readonly connectionTimeoutMs?: number;
  /** Bound on one request, in ms. Default 30000 (kafkajs's). */
  readonly requestTimeoutMs?: number;
  /** How often kafkajs retries a request before the bus reports a fault. Default 5. */
  readonly retries?: number;
  /** First retry delay of kafkajs, in ms; it grows to about 30 s. Default 300. */
  readonly initialRetryTimeMs?: number;
}

/** One record to produce. The value is already encoded (see the codec). */
export interface OutRecord {
  /** Full topic name. */
  readonly topic: string;
  /** Record key; records with the same key go to the same partition (murmur2, as Java does). */
  readonly key: string | null;
  readonly value: Buffer;
  readonly headers?: Readonly<Record<string, string>>;
}

/** A consumer group's position in one partition: the offset of the next record to read. */
export interface PartitionOffset {
  readonly topic: string;
  readonly partition: number;
  /** Offset of the next record, as a decimal string. */
  readonly offset: string;
}

/** One partition of a topic. */
export interface TopicPartition {
  readonly topic: string;
  readonly partition: number;
}

/** One open transaction of a transactional producer. */
export interface BusTransaction {
  /**
   * Produces records inside the transaction; in array order per partition. Records of more than
   * `MAX_REQUEST_RECORD_BYTES` together go in several requests, one after another. Resolves with
   * the partitions the broker wrote them to, as each request's answer names them.
   */
  send(records: readonly OutRecord[]): Promise<readonly TopicPartition[]>;
  /** Adds a group's offsets to the transaction: they commit if and only if it commits. */
  sendOffsets(groupId: string, offsets: readonly PartitionOffset[]): Promise<void>;
  commit(): Promise<void>;
  abort(): Promise<void>;
  /** False once committed or aborted. */
  isActive(): boolean;
}

/** Options of {@link Bus.producer}. */
export interface BusProducerOptions {
  /** Makes the producer transactional. One live producer per id: a newer one fences the older. */
  readonly transactionalId?: string;
  /**
   * How long the coordinator lets a transaction stay open before aborting it, in ms. It bounds
   * how long a crashed instance's open transaction holds back read-committed readers when no
   * producer with the same id starts again. Default 15000.
   */
  readonly transactionTimeoutMs?: number;
}

/** An idempotent producer (acks = all, one request in flight), optionally transactional. */
export interface BusProducer {
  /**
   * Connects and, when transactional, takes over the transactional id: older producers with it
   * are fenced, and a transaction one of them left open is aborted before this resolves.
   */
  connect(): Promise<void>;
  /** Produces outside a transaction; a transactional producer refuses this. */
  send(records: readonly OutRecord[]): Promise<void>;
  /** Begins a transaction; only one may be open at a time. */
  transaction(): Promise<BusTransaction>;
  disconnect(): Promise<void>;
}

/** A consumed record. */
export interface BusMessage {
  /** Offset as a decimal string. */
  readonly offset: string;
  readonly key: Buffer | null;
  readonly value: Buffer | null;
  /** Headers as UTF-8 text; a repeated name is left out (see `headersFromRecord`). */
  readonly headers: Readonly<Record<string, string>>;
  /** The record's timestamp, ms since the epoch as a decimal string. */
  readonly timestamp: string;
}

/** The records of one partition that one fetch returned. */
export interface BusBatch {
  readonly topic: string;
  readonly partition: number;
  /** Offset after the last record written to the partition. */
  readonly highWatermark: string;
  /** Committed records only (read_committed); aborted ones and control records are filtered. */
  readonly messages: readonly BusMessage[];
  /** Offset of the last entry the fetch covered, including filtered ones. */
  lastOffset(): string;
  /**
   * Marks the consumer's position past `offset`, so the next fetch starts after it. Resolving
   * the last message also skips any control records behind it. Commits nothing.
   */
  resolveOffset(offset: string): void;
  /** Tells the group coordinator this member is alive; throws when the group is rebalancing. */
  heartbeat(): Promise<void>;
  /** False once the consumer is stopping. */
  isRunning(): boolean;
  /** True when a seek for this partition is pending: the rest of the batch is out of date. */
  isStale(): boolean;
}

/** Options of {@link Bus.consumer}. */
export interface BusConsumerOptions {
  readonly groupId: string;
  /** Read only committed transactions (default true: the gate never reads aborted output). */
  readonly readCommitted?: boolean;
  /**
   * How long the group waits for a silent member before giving its partitions to others, in ms;
   * after a crash, the partitions of the dead member wait this long. Default 30000.
   */
  readonly sessionTimeoutMs?: number;
  /** Default 3000 ms, or a third of the session timeout when that is shorter. */
  readonly heartbeatIntervalMs?: number;
  /**
   * How long the group waits, once a rebalance starts, for every member to rejoin, in ms; a member
   * still busy in a batch by then is dropped from the group. Default 60000.
   */
  readonly rebalanceTimeoutMs?: number;
  /**
   * How long a fetch waits for `minBytes` of records, in ms; also bounds how late a resumed
   * partition starts. Default 500.
   */
  readonly maxWaitTimeMs?: number;
  /**
   * A fetch is answered once this many bytes of records are ready, or after `maxWaitTimeMs`,
   * whichever comes first (Kafka's `fetch.min.bytes`). Default 1: answered as soon as anything is.
   */
  readonly minBytes?: number;
  /**
   * Only a fetch right after a busy one (see `busyMinBytes`) waits for `minBytes`; any other (the
   * first, or one after an empty or small answer) is answered by the first record, or after this
   * many ms (our kafkajs patch, `patches/`). Default `maxWaitTimeMs`. With a large `minBytes` and
   * a short `maxWaitTimeMs`, a busy consumer gets larger batches while an idle one long-polls as
   * before, and a record that comes after a quiet spell is not held back. When idle, this is what
   * bounds how late a resumed partition starts.
   */
  readonly idleMaxWaitTimeMs?: number;
  /**
   * What makes a fetch busy, so that the next one waits for `minBytes`: at least this many bytes
   * of records (keys and values) in its answer (our kafkajs patch). Default 1: any record.
   */
  readonly busyMinBytes?: number;
  /** Default 1 MiB. */
  readonly maxBytesPerPartition?: number;
  /**
   * How many partition batches of one fetch are handed to `run`'s callback at once (kafkajs's
   * `partitionsConsumedConcurrently`). Batches of the same partition never overlap. Default 1.
   */
  readonly partitionsConcurrently?: number;
}

/** Which partitions of which topics a member was given. */
export type Assignment = Readonly<Record<string, readonly number[]>>;

/**
 * A consumer that never commits offsets itself: positions move only through
 * {@link BusTransaction.sendOffsets}. Batches of different partitions overlap when
 * `partitionsConcurrently` allows it; kafkajs fetches again once every batch of a fetch is done.
 */
export interface BusConsumer {
  connect(): Promise<void>;
  /** Subscribes; a group with no committed offset starts at the earliest record unless told not to. */
  subscribe(
    topics: readonly string[],
    options?: { readonly fromBeginning?: boolean },
  ): Promise<void>;
  /** Starts consuming; resolves once the consumer has started (it joins the group on its own). */
  run(eachBatch: (batch: BusBatch) => Promise<void>): Promise<void>;
  /** Stops fetching from a partition until {@link BusConsumer.resume}. */
  pause(topic: string, partition: number): void;
  resume(topic: string, partition: number): void;
  /** The next fetch of the partition starts at `offset`. */
  seek(topic: string, partition: number, offset: string): void;
  /** Called after each join of the group with this member's assignment. Returns an unsubscriber. */
  onGroupJoin(listener: (assignment: Assignment) => void): () => void;
  /** Called when the consumer crashed; `restarting` says whether kafkajs restarts it. */
  onCrash(listener: (error: Fault, restarting: boolean) => void): () => void;
  /** Leaves the group (after the batch in hand) and closes the connections. */
  disconnect(): Promise<void>;
}

/** The gate's Kafka: admin helpers and factories of producers and consumers. */
export interface Bus {
  /**
   * Creates the topics that do not exist yet, with their partitions and configs; returns the
   * names it created. Idempotent (a topic created meanwhile by someone else counts as existing).
   * An existing topic with fewer partitions than declared is logged, not changed.
   */
  ensureTopics(specs: readonly TopicSpec[]): Promise<readonly string[]>;
  /** The group's committed offset of a partition, or undefined when it has none. */
  committedOffset(groupId: string, topic: string, partition: number): Promise<string | undefined>;
  /**
   * Where each partition of `topic` ends now: the offset the next record written to it will get
   * (the high watermark). A reader that seeks there misses nothing written after this call, which
   * a group that starts "at the latest offset" cannot promise: kafkajs resolves that offset only
   * at its first fetch, some time after the group join.
   */
  latestOffsets(topic: string): Promise<readonly PartitionOffset[]>;
  /**
   * Per partition of `topic`, the offset of the first record written at or after `timestamp`
   * (ms since the epoch), or the latest offset when there is none; `timestamp` 0 gives the
   * earliest record still kept.
   */
  offsetsAt(topic: string, timestamp: number): Promise<readonly PartitionOffset[]>;
  /**
   * The topics the members of `groupId` subscribe to now, all together, as the group coordinator
   * holds their subscriptions; none when the group has no member.
   */
  groupTopics(groupId: string): Promise<readonly string[]>;
  /**
   * Which of `topics` this identity cannot see: missing, or not allowed to it (a default-deny
   * authorizer answers both the same way, so that nobody learns which topics exist).
   */
  unseenTopics(topics: readonly string[]): Promise<readonly string[]>;
  /**
   * Creates an ALLOW binding for each of `bindings`, from any host; one that exists already stays
   * as it is. Needs an identity that may alter the cluster's ACLs (a super user).
   */
  createAcls(bindings: readonly AclBinding[]): Promise<void>;
  /** The ALLOW bindings the cluster holds, all or only those of `principal`. */
  describeAcls(principal?: string): Promise<readonly AclBinding[]>;
  /** Deletes exactly `bindings` (ALLOW, any host). */
  deleteAcls(bindings: readonly AclBinding[]): Promise<void>;
  producer(options?: BusProducerOptions): BusProducer;
  consumer(options: BusConsumerOptions): BusConsumer;
  /** Disconnects the admin client; producers and consumers are closed by their owners. Idempotent. */
  close(): Promise<void>;
}
