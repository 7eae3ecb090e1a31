/**
 * What the stack does with a running Kafka as its administrator: the readiness check, and creating
 * the declared topics and the ACLs the rest of the stack relies on. The one file of infra/ that
 * imports kafkajs (scripts/lint/boundaries.js).
 */
import kafkajs, { type Admin, type Kafka as KafkaClient } from 'kafkajs';
import {
  alignTimestampTypes,
  createBus,
  DECLARED_TOPICS,
  SILENT_LOGGER,
  topicConfigEntries,
  type AclBinding,
  type KafkaSecurity,
  type TopicSpec,
} from '@toolgate/platform';
import type { KafkaAccess } from './kafka.js';
import type { TopicReplication } from './stack-config.js';
import { missingBindings } from './stack-principals.js';
import type { Attempt } from './wait.js';

const { Kafka, logLevel, Partitioners } = kafkajs;

/** The topic `stack:up` creates, describes and writes to in a transaction to prove Kafka answers. */
export const READINESS_TOPIC = 'toolgate.stack.readiness';

/** Creates the bindings the cluster does not hold yet; returns how many it created. */
export async function ensureAcls(
  access: KafkaAccess,
  bindings: readonly AclBinding[],
): Promise<number> {
  const bus = createBus({
    brokers: [...access.brokers],
    clientId: 'toolgate-stack',
    logger: SILENT_LOGGER,
    security: access.security,
    retries: 2,
  });
  try {
    const missing = missingBindings(bindings, await bus.describeAcls());
    await bus.createAcls(missing);
    return missing.length;
  } finally {
    await bus.close();
  }
}

function client(access: KafkaAccess, retries = 2): KafkaClient {
  const sasl = access.security.sasl;
  return new Kafka({
    clientId: 'toolgate-stack',
    brokers: [...access.brokers],
    logLevel: logLevel.NOTHING,
    connectionTimeout: 1_000,
    requestTimeout: 5_000,
    retry: { retries, initialRetryTime: 200 },
    ...(sasl === undefined
      ? {}
      : {
          sasl: {
            mechanism: sasl.mechanism.toLowerCase() as 'scram-sha-512',
            username: sasl.username,
            password: sasl.password,
          },
        }),
    ...(access.security.tls === undefined ? {} : { ssl: tlsOf(access.security) }),
  });
}

function tlsOf(security: KafkaSecurity): boolean | { ca?: string[]; cert?: string; key?: string } {
  const tls = security.tls ?? {};
  if (tls.ca === undefined && tls.cert === undefined) return true;
  return {
    ...(tls.ca === undefined ? {} : { ca: [tls.ca] }),
    ...(tls.cert === undefined ? {} : { cert: tls.cert }),
    ...(tls.key === undefined ? {} : { key: tls.key }),
  };
}

async function withAdmin<T>(
  access: KafkaAccess,
  use: (admin: Admin) => Promise<T>,
  retries?: number,
): Promise<T> {
  const admin = client(access, retries).admin();
  await admin.connect();
  try {
    return await use(admin);
  } finally {
    await admin.disconnect();
  }
}

/**
 * A quick check: does a Kafka broker answer at `brokers` (cluster metadata), with at least
 * `nodes` brokers registered and not fenced?
 */
export async function probeKafka(access: KafkaAccess, nodes = 1): Promise<Attempt> {
  try {
    await withAdmin(access, (admin) => expectBrokers(admin, nodes), 0);
    return { ready: true };
  } catch (error) {
    return { ready: false, why: messageOf(error) };
  }
}

async function expectBrokers(admin: Admin, nodes: number): Promise<void> {
  const { brokers } = await admin.describeCluster();
  if (brokers.length < nodes) {
    const ids = brokers.map((b) => b.nodeId).sort((a, b) => a - b);
    throw new Error(`${brokers.length} of ${nodes} brokers serve (node ids ${ids.join(', ')})`);
  }
}

/**
 * Whether the broker `nodeId` serves: registered and not fenced, as the cluster's metadata says
 * (a fenced or stopped broker is not listed).
 */
export async function brokerServes(access: KafkaAccess, nodeId: number): Promise<Attempt> {
  try {
    const { brokers } = await withAdmin(access, (admin) => admin.describeCluster(), 0);
    return brokers.some((b) => b.nodeId === nodeId)
      ? { ready: true }
      : { ready: false, why: `broker ${nodeId} is not among the cluster's brokers` };
  } catch (error) {
    return { ready: false, why: messageOf(error) };
  }
}

/**
 * The full readiness check: `nodes` brokers serve, a topic can be created and described, and a
 * transaction that also commits consumer offsets goes through. The last part waits out the
 * first-use creation of the offsets and transaction-state topics, which otherwise fails a
 * client's first transaction.
 */
export async function kafkaReady(access: KafkaAccess, nodes = 1): Promise<Attempt> {
  try {
    await withAdmin(access, async (admin) => {
      await expectBrokers(admin, nodes);
      await admin.createTopics({
        topics: [{ topic: READINESS_TOPIC, numPartitions: 1 }],
        waitForLeaders: true,
      });
      const { topics } = await admin.fetchTopicMetadata({ topics: [READINESS_TOPIC] });
      if (topics[0]?.partitions[0]?.leader === undefined)
        throw new Error(`${READINESS_TOPIC} has no leader yet`);
    });
    await commitProbeTransaction(access);
    return { ready: true };
  } catch (error) {
    return { ready: false, why: messageOf(error) };
  }
}

async function commitProbeTransaction(access: KafkaAccess): Promise<void> {
  const producer = client(access).producer({
    transactionalId: READINESS_TOPIC,
    idempotent: true,
    maxInFlightRequests: 1,
    createPartitioner: Partitioners.DefaultPartitioner,
  });
  await producer.connect();
  try {
    const tx = await producer.transaction();
    try {
      await tx.send({ topic: READINESS_TOPIC, messages: [{ value: new Date().toISOString() }] });
      await tx.sendOffsets({
        consumerGroupId: READINESS_TOPIC,
        topics: [{ topic: READINESS_TOPIC, partitions: [{ partition: 0, offset: '0' }] }],
      });
      await tx.commit();
    } catch (error) {
      await tx.abort().catch(() => undefined);
      throw error;
    }
  } finally {
    await producer.disconnect();
  }
}

/**
 * Creates the declared topics that do not exist yet, and gives existing ones their declared
 * timestamp type (their other settings stay as they are). Returns the names it created. Their
 * replication is `replication` when given (the stack's own Kafka), else the cluster's default.
 */
export async function ensureTopics(
  access: KafkaAccess,
  replication?: TopicReplication,
  topics: readonly TopicSpec[] = DECLARED_TOPICS,
): Promise<string[]> {
  return withAdmin(access, async (admin) => {
    const existing = new Set(await admin.listTopics());
    const missing = topics.filter((t) => !existing.has(t.name));
    await alignTimestampTypes(
      admin,
      topics.filter((t) => existing.has(t.name)),
    );
    if (missing.length === 0) return [];
    await admin.createTopics({
      waitForLeaders: true,
      topics: missing.map((t) => ({
        topic: t.name,
        numPartitions: t.partitions,
        ...(replication === undefined ? {} : { replicationFactor: replication.replicationFactor }),
        configEntries: [
          ...topicConfigEntries(t).map((e) => ({ ...e })),
          ...(replication === undefined
            ? []
            : [{ name: 'min.insync.replicas', value: String(replication.minInsyncReplicas) }]),
        ],
      })),
    });
    return missing.map((t) => t.name);
  });
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
