/**
 * The Kafka bus: the only module that imports kafkajs. Thin, typed wrappers for what the gate
 * does with Kafka (create its topics, produce in transactions, consume batches with offsets that
 * only a transaction commits), kafkajs's own log routed to the gate's logger at warn and above,
 * and every kafkajs error mapped to a {@link Fault} (see {@link kafkaFault}).
 */
import kafkajs from 'kafkajs';
import type {
  Admin,
  Assigner,
  Consumer,
  EachBatchPayload,
  Kafka,
  KafkaConfig,
  KafkaMessage,
  LogEntry,
  PartitionAssigner,
  Producer,
  Transaction,
} from 'kafkajs';
import type { AdapterLogger } from './adapter-logger.js';
import { assignBySubscription } from './assign-by-subscription.js';
import type { Fault } from './fault.js';
import { kafkaFault } from './kafka-fault.js';
import type { KafkaSecurity } from './kafka-security.js';
import type { AclBinding } from './acls.js';
import { headersFromRecord } from './record-headers.js';
import { requestsOf } from './record-size.js';
import { topicConfigEntries, type TopicSpec } from './topics.js';

const {
  AclOperationTypes,
  AclPermissionTypes,
  AclResourceTypes,
  AssignerProtocol,
  ResourcePatternTypes,
  Kafka: KafkaClient,
  PartitionAssigners,
  Partitioners,
  logLevel,
} = kafkajs;

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

/** Options of {@link createBus}. */
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
  /** Headers as UTF-8 text; a repeated name is left out (see {@link headersFromRecord}). */
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

/** Runs `work`, turning whatever kafkajs throws into a Fault that names `action`. */
async function attempt<T>(action: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw kafkaFault(error, action);
  }
}

// Lines kafkajs logs at warn or error that are routine for the gate: the coordinator answers
// CONCURRENT_TRANSACTIONS to the first request of a transaction begun right after the previous
// commit (retried within milliseconds: the transaction manager first, with our kafkajs patch,
// then the producer), and kafkajs warns that finite retries may break an idempotent producer's
// guarantees, which transactions keep (a failed send is aborted).
const ROUTINE = [
  /another concurrent operation on the same transaction/,
  /^Limiting retries for the idempotent producer/,
];

function isRoutine(message: string, fields: Readonly<Record<string, unknown>>): boolean {
  const error = typeof fields['error'] === 'string' ? fields['error'] : '';
  return ROUTINE.some((pattern) => pattern.test(message) || pattern.test(error));
}

/**
 * kafkajs's `logCreator` for `logger`: log lines at warn and above as structured log calls,
 * routine ones at debug. The method is called ON the logger: pino's methods need their `this`.
 */
export function logCreatorFor(logger: AdapterLogger) {
  return () =>
    ({ namespace, level, log }: LogEntry): void => {
      const { message, timestamp: _timestamp, logger: _logger, ...fields } = log;
      const entry = { kafkajs: namespace, ...fields };
      // Called as methods: a pino logger's methods read their logger from `this`, and a throw here
      // would surface inside kafkajs as the failure of whatever request it was logging about.
      if (isRoutine(message, fields)) logger.debug(entry, message);
      else if (level <= logLevel.ERROR) logger.error(entry, message);
      else logger.warn(entry, message);
    };
}

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

function wrapProducer(producer: Producer, transactional: boolean): BusProducer {
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

function wrapConsumer(consumer: Consumer, options: BusConsumerOptions): BusConsumer {
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

function newConsumer(kafka: Kafka, options: BusConsumerOptions): Consumer {
  const sessionTimeout = options.sessionTimeoutMs ?? 30_000;
  const maxWaitTimeInMs = options.maxWaitTimeMs ?? 500;
  return kafka.consumer({
    groupId: options.groupId,
    readUncommitted: !(options.readCommitted ?? true),
    sessionTimeout,
    heartbeatInterval:
      options.heartbeatIntervalMs ?? Math.min(3_000, Math.floor(sessionTimeout / 3)),
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

function newProducer(kafka: Kafka, options: BusProducerOptions): Producer {
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

/** One admin client, connected on first use and reconnected after a failed connect. */
function lazyAdmin(kafka: Kafka) {
  let connected: Promise<Admin> | undefined;
  const get = (): Promise<Admin> => {
    connected ??= (async () => {
      const admin = kafka.admin();
      await admin.connect();
      return admin;
    })();
    connected.catch(() => (connected = undefined));
    return connected;
  };
  const close = async (): Promise<void> => {
    const pending = connected;
    connected = undefined;
    if (pending) await (await pending.catch(() => undefined))?.disconnect();
  };
  return { get, close };
}

async function warnAboutPartitions(
  admin: Admin,
  specs: readonly TopicSpec[],
  logger: AdapterLogger,
): Promise<void> {
  if (specs.length === 0) return;
  const { topics } = await admin.fetchTopicMetadata({ topics: specs.map((s) => s.name) });
  for (const t of topics) {
    const declared = specs.find((s) => s.name === t.name)?.partitions ?? 0;
    if (t.partitions.length < declared) {
      logger.warn(
        { topic: t.name, partitions: t.partitions.length, declared },
        'topic has fewer partitions than declared; keys may not spread as planned',
      );
    }
  }
}

// Right after creation a KRaft broker may answer UNKNOWN_TOPIC_OR_PARTITION for a while, which
// kafkajs's own `waitForLeaders` does not retry.
const NOT_READY_YET: ReadonlySet<unknown> = new Set([
  'UNKNOWN_TOPIC_OR_PARTITION',
  'LEADER_NOT_AVAILABLE',
]);

/** Resolves when every partition of `names` has a leader; rejects after `timeoutMs`. */
async function waitForLeaders(
  admin: Admin,
  names: readonly string[],
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const { topics } = await admin.fetchTopicMetadata({ topics: [...names] });
      if (topics.every((t) => t.partitions.length > 0 && t.partitions.every((p) => p.leader >= 0)))
        return;
    } catch (error) {
      if (!NOT_READY_YET.has((error as { type?: unknown }).type)) throw error;
    }
    if (Date.now() > deadline)
      throw new Error(`topics ${names.join(', ')} have no leaders after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

// A partition just created (or whose leader moves) answers NOT_LEADER_FOR_PARTITION for a moment;
// kafkajs's fetchTopicOffsets gives up on it at once.
const SETTLING: ReadonlySet<unknown> = new Set([...NOT_READY_YET, 'NOT_LEADER_FOR_PARTITION']);

/** Runs `work` again every 100 ms while a partition is settling, for at most `timeoutMs`. */
async function whileSettling<T>(timeoutMs: number, work: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await work();
    } catch (error) {
      if (!SETTLING.has((error as { type?: unknown }).type) || Date.now() > deadline) throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const RESOURCE_TYPES = {
  TOPIC: AclResourceTypes.TOPIC,
  GROUP: AclResourceTypes.GROUP,
  TRANSACTIONAL_ID: AclResourceTypes.TRANSACTIONAL_ID,
  CLUSTER: AclResourceTypes.CLUSTER,
} as const;
const PATTERN_TYPES = {
  LITERAL: ResourcePatternTypes.LITERAL,
  PREFIXED: ResourcePatternTypes.PREFIXED,
} as const;
const OPERATIONS = {
  ALL: AclOperationTypes.ALL,
  READ: AclOperationTypes.READ,
  WRITE: AclOperationTypes.WRITE,
  CREATE: AclOperationTypes.CREATE,
  DESCRIBE: AclOperationTypes.DESCRIBE,
  DESCRIBE_CONFIGS: AclOperationTypes.DESCRIBE_CONFIGS,
} as const;

function aclEntryOf(b: AclBinding) {
  return {
    resourceType: RESOURCE_TYPES[b.resourceType],
    resourceName: b.resourceName,
    resourcePatternType: PATTERN_TYPES[b.patternType],
    principal: `User:${b.principal}`,
    host: '*',
    operation: OPERATIONS[b.operation],
    permissionType: AclPermissionTypes.ALLOW,
  };
}

function keyOf<T extends Readonly<Record<string, number>>>(table: T, value: number): keyof T {
  const found = Object.entries(table).find(([, v]) => v === value)?.[0];
  if (found === undefined) throw new TypeError(`an ACL with an unknown code ${value}`);
  return found;
}

function bindingOf(
  resource: { resourceType: number; resourceName: string; resourcePatternType: number },
  acl: { principal: string; operation: number },
): AclBinding {
  return {
    principal: acl.principal.replace(/^User:/, ''),
    resourceType: keyOf(RESOURCE_TYPES, resource.resourceType),
    resourceName: resource.resourceName,
    patternType: keyOf(PATTERN_TYPES, resource.resourcePatternType),
    operation: keyOf(OPERATIONS, acl.operation),
  };
}

/** kafkajs's `sasl` and `ssl` options for `security`. */
function kafkajsSecurity(security: KafkaSecurity | undefined): Partial<KafkaConfig> {
  if (security === undefined) return {};
  const { sasl, tls } = security;
  return {
    ...(sasl === undefined
      ? {}
      : {
          sasl: {
            mechanism: sasl.mechanism.toLowerCase() as 'plain',
            username: sasl.username,
            password: sasl.password,
          },
        }),
    ...(tls === undefined
      ? {}
      : {
          ssl:
            tls.ca === undefined && tls.cert === undefined
              ? true
              : {
                  ...(tls.ca === undefined ? {} : { ca: [tls.ca] }),
                  ...(tls.cert === undefined ? {} : { cert: tls.cert }),
                  ...(tls.key === undefined ? {} : { key: tls.key }),
                },
        }),
  };
}

/** Connects nothing yet: returns the bus; connections open when first used. */
export function createBus(options: BusOptions): Bus {
  const kafka = new KafkaClient({
    clientId: options.clientId,
    brokers: [...options.brokers],
    connectionTimeout: options.connectionTimeoutMs ?? 3_000,
    requestTimeout: options.requestTimeoutMs ?? 30_000,
    retry: { retries: options.retries ?? 5, initialRetryTime: options.initialRetryTimeMs ?? 300 },
    logLevel: logLevel.WARN,
    logCreator: logCreatorFor(options.logger),
    ...kafkajsSecurity(options.security),
  });
  const admin = lazyAdmin(kafka);
  return {
    ensureTopics: (specs) =>
      attempt('create topics', async () => {
        const a = await admin.get();
        const existing = new Set(await a.listTopics());
        const missing = specs.filter((s) => !existing.has(s.name));
        await warnAboutPartitions(
          a,
          specs.filter((s) => existing.has(s.name)),
          options.logger,
        );
        if (missing.length === 0) return [];
        await a.createTopics({
          // kafkajs's own wait gives up on UNKNOWN_TOPIC_OR_PARTITION, which a KRaft broker under
          // load answers for a while after creating a topic; waitForLeaders below retries it.
          waitForLeaders: false,
          topics: missing.map((s) => ({
            topic: s.name,
            numPartitions: s.partitions,
            configEntries: topicConfigEntries(s).map((e) => ({ ...e })),
          })),
        });
        await waitForLeaders(
          a,
          missing.map((s) => s.name),
          options.requestTimeoutMs ?? 30_000,
        );
        return missing.map((s) => s.name);
      }),
    committedOffset: (groupId, topic, partition) =>
      attempt(`fetch the offsets of ${groupId}`, async () => {
        const [offsets] = await (await admin.get()).fetchOffsets({ groupId, topics: [topic] });
        const found = offsets?.partitions.find((p) => p.partition === partition)?.offset;
        return found === undefined || BigInt(found) < 0n ? undefined : found;
      }),
    latestOffsets: (topic) =>
      attempt(`fetch the latest offsets of ${topic}`, async () => {
        const a = await admin.get();
        const timeoutMs = options.requestTimeoutMs ?? 30_000;
        const offsets = await whileSettling(timeoutMs, () => a.fetchTopicOffsets(topic));
        return offsets
          .map((p) => ({ topic, partition: p.partition, offset: p.high }))
          .sort((x, y) => x.partition - y.partition);
      }),
    offsetsAt: (topic, timestamp) =>
      attempt(`fetch the offsets of ${topic} at ${new Date(timestamp).toISOString()}`, async () => {
        const a = await admin.get();
        const timeoutMs = options.requestTimeoutMs ?? 30_000;
        const offsets = await whileSettling(timeoutMs, () =>
          timestamp <= 0
            ? a.fetchTopicOffsets(topic).then((ps) => ps.map((p) => ({ ...p, offset: p.low })))
            : a.fetchTopicOffsetsByTimestamp(topic, timestamp),
        );
        return offsets
          .map((p) => ({ topic, partition: p.partition, offset: p.offset }))
          .sort((x, y) => x.partition - y.partition);
      }),
    groupTopics: (groupId) =>
      attempt(`describe the group ${groupId}`, async () => {
        const { groups } = await (await admin.get()).describeGroups([groupId]);
        const members = groups.find((g) => g.groupId === groupId)?.members ?? [];
        const topics = members.flatMap(
          (m) => AssignerProtocol.MemberMetadata.decode(m.memberMetadata)?.topics ?? [],
        );
        return [...new Set(topics)].sort();
      }),
    unseenTopics: (topics) =>
      attempt('list topics', async () => {
        const seen = new Set(await (await admin.get()).listTopics());
        return topics.filter((t) => !seen.has(t));
      }),
    createAcls: (bindings) =>
      attempt('create ACLs', async () => {
        if (bindings.length === 0) return;
        await (await admin.get()).createAcls({ acl: bindings.map(aclEntryOf) });
      }),
    describeAcls: (principal) =>
      attempt('describe ACLs', async () => {
        const { resources } = await (
          await admin.get()
        ).describeAcls({
          resourceType: AclResourceTypes.ANY,
          resourcePatternType: ResourcePatternTypes.ANY,
          ...(principal === undefined ? {} : { principal: `User:${principal}` }),
          host: '*',
          operation: AclOperationTypes.ANY,
          permissionType: AclPermissionTypes.ALLOW,
        });
        return resources.flatMap((r) => r.acls.map((acl) => bindingOf(r, acl)));
      }),
    deleteAcls: (bindings) =>
      attempt('delete ACLs', async () => {
        if (bindings.length === 0) return;
        await (await admin.get()).deleteAcls({ filters: bindings.map(aclEntryOf) });
      }),
    producer: (producerOptions = {}) =>
      wrapProducer(
        newProducer(kafka, producerOptions),
        producerOptions.transactionalId !== undefined,
      ),
    consumer: (consumerOptions) =>
      wrapConsumer(newConsumer(kafka, consumerOptions), consumerOptions),
    close: () => attempt('close the admin client', () => admin.close()),
  };
}
