/**
 * The Kafka component: a single KRaft node (broker and controller in one JVM) on the loopback
 * address, its storage formatted once under `.stack/kafka/data`, and the readiness check and topic
 * creation the rest of the stack relies on.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import kafkajs, { type Admin, type Kafka as KafkaClient } from 'kafkajs';
import { DECLARED_TOPICS, topicConfigEntries, type TopicSpec } from '@toolgate/platform';
import { findJava } from './java.js';
import { fetchKafka } from './maven.js';
import { spawnDetached, type StartedProcess } from './processes.js';
import { MIN_JAVA, type StackConfig } from './stack-config.js';
import { StackError, problemIn } from './stack-error.js';
import type { Attempt, Reporter } from './wait.js';

const { Kafka, logLevel, Partitioners } = kafkajs;

/** The topic `stack:up` creates, describes and writes to in a transaction to prove Kafka answers. */
export const READINESS_TOPIC = 'toolgate.stack.readiness';

/** Kafka's folder under the stack directory. */
export function kafkaDir(config: StackConfig): string {
  return path.join(config.stackDir, 'kafka');
}

/** The broker's log (stdout and stderr of the JVM, log4j2 writes to the console). */
export function kafkaLog(config: StackConfig): string {
  return path.join(config.logDir, 'kafka.log');
}

/**
 * The single node's `server.properties`. Replication factors and the transaction log's min ISR
 * are 1, or transactions and consumer groups never become available on one broker.
 */
export function serverProperties(config: StackConfig): string {
  const { host } = config;
  const { kafka: port, kafkaController: controller } = config.ports;
  return [
    'process.roles=broker,controller',
    'node.id=1',
    `controller.quorum.voters=1@${host}:${controller}`,
    `listeners=PLAINTEXT://${host}:${port},CONTROLLER://${host}:${controller}`,
    `advertised.listeners=PLAINTEXT://${host}:${port}`,
    'controller.listener.names=CONTROLLER',
    'inter.broker.listener.name=PLAINTEXT',
    'listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT',
    `log.dirs=${path.join(kafkaDir(config), 'data')}`,
    'num.partitions=1',
    'default.replication.factor=1',
    'offsets.topic.replication.factor=1',
    // Fewer coordinator partitions than production's 50: a fresh node is ready seconds sooner.
    'offsets.topic.num.partitions=6',
    'transaction.state.log.num.partitions=6',
    'transaction.state.log.replication.factor=1',
    'transaction.state.log.min.isr=1',
    'share.coordinator.state.topic.replication.factor=1',
    'share.coordinator.state.topic.min.isr=1',
    'group.initial.rebalance.delay.ms=0',
    // Topics are declared (packages/platform/src/topics.ts); a typo must fail, not create one.
    'auto.create.topics.enable=false',
    '',
  ].join('\n');
}

/** log4j2 configuration: everything to the console, which the driver sends to the log file. */
export const LOG4J2_PROPERTIES = [
  'status = warn',
  'appender.console.type = Console',
  'appender.console.name = console',
  'appender.console.layout.type = PatternLayout',
  'appender.console.layout.pattern = [%d] %p %m (%c)%n',
  'rootLogger.level = INFO',
  'rootLogger.appenderRef.console.ref = console',
  'logger.kafka-config.name = org.apache.kafka.common.config.AbstractConfig',
  'logger.kafka-config.level = WARN',
  '',
].join('\n');

/** Checks what starting Kafka needs (Java 17+) before anything is started. */
export function preflightKafka(config: StackConfig): void {
  findJava('kafka', MIN_JAVA.kafka, config.env);
}

/** Fetches the jars, writes the configuration, formats storage once and starts the broker. */
export async function startKafka(config: StackConfig, reporter: Reporter): Promise<StartedProcess> {
  const java = findJava('kafka', MIN_JAVA.kafka, config.env);
  const libs = await fetchKafka(config, reporter);
  const dir = kafkaDir(config);
  mkdirSync(path.join(dir, 'data'), { recursive: true });
  const props = path.join(dir, 'server.properties');
  const log4j = path.join(dir, 'log4j2.properties');
  writeFileSync(props, serverProperties(config));
  writeFileSync(log4j, LOG4J2_PROPERTIES);
  const jvm = [`-Dlog4j2.configurationFile=${log4j}`, '-cp', `${libs}${path.sep}*`];
  formatOnce(config, java.path, jvm, props);
  return spawnDetached({
    command: java.path,
    args: [
      ...KAFKA_JVM_OPTIONS,
      `-Dtoolgate.stack=${config.stackDir}`,
      ...jvm,
      'kafka.Kafka',
      props,
    ],
    cwd: dir,
    logFile: kafkaLog(config),
    pidFile: path.join(config.runDir, 'kafka.pid'),
    env: config.env,
  });
}

/** Heap kept modest: several JVMs and Node services share a 2-core machine. */
const KAFKA_JVM_OPTIONS = [
  '-Xms256m',
  '-Xmx1g',
  '-XX:+UseG1GC',
  '-XX:MaxGCPauseMillis=20',
  '-XX:+ExitOnOutOfMemoryError',
  '-Djava.awt.headless=true',
];

function formatOnce(
  config: StackConfig,
  java: string,
  jvm: readonly string[],
  props: string,
): void {
  if (existsSync(path.join(kafkaDir(config), 'data', 'meta.properties'))) return;
  const clusterId = newClusterId();
  const run = spawnSync(
    java,
    [
      ...jvm,
      'kafka.tools.StorageTool',
      'format',
      '-t',
      clusterId,
      '-c',
      props,
      '--ignore-formatted',
    ],
    {
      encoding: 'utf8',
      env: { ...config.env },
      timeout: 120_000,
    },
  );
  const log = kafkaLog(config);
  mkdirSync(config.logDir, { recursive: true });
  writeFileSync(`${log}.format`, `${run.stdout}${run.stderr}`);
  if (run.status !== 0) {
    const why = problemIn(`${run.stdout}${run.stderr}`);
    throw new StackError('kafka', `formatting storage failed: ${why}`, {
      logFile: `${log}.format`,
    });
  }
}

/**
 * A Kafka cluster id: 16 random bytes in URL-safe base64 without padding. Like Kafka's own
 * `Uuid.randomUuid`, it never starts with `-`, which command-line parsers take for an option.
 */
export function newClusterId(): string {
  for (;;) {
    const id = randomBytes(16).toString('base64url');
    if (!id.startsWith('-')) return id;
  }
}

function client(brokers: readonly string[], retries = 2): KafkaClient {
  return new Kafka({
    clientId: 'toolgate-stack',
    brokers: [...brokers],
    logLevel: logLevel.NOTHING,
    connectionTimeout: 1_000,
    requestTimeout: 5_000,
    retry: { retries, initialRetryTime: 200 },
  });
}

async function withAdmin<T>(
  brokers: readonly string[],
  use: (admin: Admin) => Promise<T>,
  retries?: number,
): Promise<T> {
  const admin = client(brokers, retries).admin();
  await admin.connect();
  try {
    return await use(admin);
  } finally {
    await admin.disconnect();
  }
}

/** A quick check: does a Kafka broker answer at `brokers` (cluster metadata)? */
export async function probeKafka(brokers: readonly string[]): Promise<Attempt> {
  try {
    await withAdmin(brokers, (admin) => admin.describeCluster(), 0);
    return { ready: true };
  } catch (error) {
    return { ready: false, why: messageOf(error) };
  }
}

/**
 * The full readiness check: a topic can be created and described, and a transaction that also
 * commits consumer offsets goes through. The last part waits out the first-use creation of the
 * offsets and transaction-state topics, which otherwise fails a client's first transaction.
 */
export async function kafkaReady(brokers: readonly string[]): Promise<Attempt> {
  try {
    await withAdmin(brokers, async (admin) => {
      await admin.createTopics({
        topics: [{ topic: READINESS_TOPIC, numPartitions: 1 }],
        waitForLeaders: true,
      });
      const { topics } = await admin.fetchTopicMetadata({ topics: [READINESS_TOPIC] });
      if (topics[0]?.partitions[0]?.leader === undefined)
        throw new Error(`${READINESS_TOPIC} has no leader yet`);
    });
    await commitProbeTransaction(brokers);
    return { ready: true };
  } catch (error) {
    return { ready: false, why: messageOf(error) };
  }
}

async function commitProbeTransaction(brokers: readonly string[]): Promise<void> {
  const producer = client(brokers).producer({
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
 * Creates the declared topics that do not exist yet, leaving existing ones as they are. Returns
 * the names it created. The replication factor is the cluster's default.
 */
export async function ensureTopics(
  brokers: readonly string[],
  topics: readonly TopicSpec[] = DECLARED_TOPICS,
): Promise<string[]> {
  return withAdmin(brokers, async (admin) => {
    const existing = new Set(await admin.listTopics());
    const missing = topics.filter((t) => !existing.has(t.name));
    if (missing.length === 0) return [];
    await admin.createTopics({
      waitForLeaders: true,
      topics: missing.map((t) => ({
        topic: t.name,
        numPartitions: t.partitions,
        configEntries: topicConfigEntries(t).map((e) => ({ ...e })),
      })),
    });
    return missing.map((t) => t.name);
  });
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
