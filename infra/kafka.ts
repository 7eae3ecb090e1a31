/**
 * The Kafka component: one KRaft node (broker and controller in one JVM) on the loopback address,
 * its storage formatted once under `.stack/kafka/data`, with SCRAM users; or, with
 * TOOLGATE_STACK_KAFKA_NODES=3, three such nodes under `.stack/kafka/three-nodes/node-<id>/`. What
 * the stack then does as the cluster's administrator (readiness, topics, ACLs) is in
 * `kafka-admin.ts`.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { kafkaIdentityFromEnv, resolveKafkaSecurity, type KafkaSecurity } from '@toolgate/platform';
import { findJava } from './java.js';
import { fetchKafka, kafkaLibDir } from './maven.js';
import { spawnDetached, type StartedProcess } from './processes.js';
import {
  kafkaReplication,
  MIN_JAVA,
  type KafkaNodePorts,
  type StackConfig,
} from './stack-config.js';
import { StackError, problemIn } from './stack-error.js';
import { stackPrincipals, STACK_ADMIN } from './stack-principals.js';
import {
  kafkaPassword,
  kafkaPasswords,
  randomSecret,
  secretsDir,
  writeSecretFile,
} from './stack-secrets.js';
import type { Reporter } from './wait.js';

/** Where a client reaches Kafka, and as whom. */
export interface KafkaAccess {
  readonly brokers: readonly string[];
  readonly security: KafkaSecurity;
}

/** The SASL mechanism of the stack's client listener. */
export const STACK_SASL_MECHANISM = 'SCRAM-SHA-512';

/**
 * The stack's super user, as a client connects with it; for a Kafka given by
 * TOOLGATE_KAFKA_BROKERS, the identity the TOOLGATE_KAFKA_* variables name (an administrator of
 * that cluster, which `stack:up` needs to create topics and ACLs there).
 */
export function adminAccess(config: StackConfig): KafkaAccess {
  if (config.external.has('kafka')) {
    const outcome = resolveKafkaSecurity(kafkaIdentityFromEnv(config.env));
    if (!outcome.ok) throw new StackError('config', outcome.problems.join('; '));
    return { brokers: config.addresses.kafkaBrokers, security: outcome.security };
  }
  return {
    brokers: config.addresses.kafkaBrokers,
    security: {
      sasl: {
        mechanism: STACK_SASL_MECHANISM,
        username: STACK_ADMIN,
        password: kafkaPassword(config, STACK_ADMIN),
      },
    },
  };
}

/** The controller listener's own user: only the broker itself logs in with it. */
function controllerPassword(config: StackConfig): string {
  const file = path.join(secretsDir(config), 'kafka-controller.password');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const password = randomSecret();
  writeSecretFile(file, `${password}\n`);
  return password;
}

/**
 * The folder of the stack's Kafka cluster: `.stack/kafka` for one node, `.stack/kafka/three-nodes`
 * for three (so switching between them never mixes their storage).
 */
export function kafkaDir(config: StackConfig): string {
  const root = path.join(config.stackDir, 'kafka');
  return config.kafkaNodes.length === 1 ? root : path.join(root, `${nodeWord(config)}-nodes`);
}

function nodeWord(config: StackConfig): string {
  return config.kafkaNodes.length === 3 ? 'three' : String(config.kafkaNodes.length);
}

/** Where one node of the stack's Kafka keeps its configuration, storage, log and pid file. */
export interface KafkaNodeFiles {
  readonly dir: string;
  readonly dataDir: string;
  readonly properties: string;
  /** stdout and stderr of the JVM (log4j2 writes to the console). */
  readonly log: string;
  readonly pidFile: string;
}

/** The files of `node`: those of today's single node, or `node-<id>`/`kafka-<id>` ones. */
export function kafkaNodeFiles(config: StackConfig, node: KafkaNodePorts): KafkaNodeFiles {
  const single = config.kafkaNodes.length === 1;
  const dir = single ? kafkaDir(config) : path.join(kafkaDir(config), `node-${node.id}`);
  const name = single ? 'kafka' : `kafka-${node.id}`;
  return {
    dir,
    dataDir: path.join(dir, 'data'),
    properties: path.join(dir, 'server.properties'),
    log: path.join(config.logDir, `${name}.log`),
    pidFile: path.join(config.runDir, `${name}.pid`),
  };
}

/** The first node's log: the one a failure of the whole cluster points at. */
export function kafkaLog(config: StackConfig): string {
  return kafkaNodeFiles(config, firstNode(config)).log;
}

function firstNode(config: StackConfig): KafkaNodePorts {
  const [node] = config.kafkaNodes;
  if (node === undefined) throw new StackError('config', 'the stack has no Kafka node');
  return node;
}

/**
 * A node's `server.properties` (the first node's unless `node` says which): SASL/SCRAM on the client listener, SASL/PLAIN on the
 * controller listener (a controller listener without authentication would let any local process
 * alter ACLs through it, and a broker reaching its controller as ANONYMOUS is refused), the KRaft
 * `StandardAuthorizer` denying whatever no ACL allows, and `admin` the one super user besides the
 * controller's own. It holds passwords: written with mode 0600. Replication follows
 * {@link kafkaReplication}: factor and min ISR 1 on one node (or transactions and consumer groups
 * never become available there), factor 3 and min ISR 2 on three, internal topics included.
 */
export function serverProperties(
  config: StackConfig,
  passwords: { readonly admin: string; readonly controller: string },
  node: KafkaNodePorts = firstNode(config),
): string {
  const { host } = config;
  const { port, controllerPort: controller } = node;
  const { replicationFactor: factor, minInsyncReplicas: minIsr } = kafkaReplication(config);
  const voters = config.kafkaNodes.map((n) => `${n.id}@${host}:${n.controllerPort}`).join(',');
  const jaas = (module: string, fields: string) =>
    `org.apache.kafka.common.security.${module} required ${fields};`;
  return [
    'process.roles=broker,controller',
    `node.id=${node.id}`,
    `controller.quorum.voters=${voters}`,
    `listeners=SASL_PLAINTEXT://${host}:${port},CONTROLLER://${host}:${controller}`,
    `advertised.listeners=SASL_PLAINTEXT://${host}:${port}`,
    'controller.listener.names=CONTROLLER',
    'inter.broker.listener.name=SASL_PLAINTEXT',
    'listener.security.protocol.map=CONTROLLER:SASL_PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT',
    `sasl.enabled.mechanisms=${STACK_SASL_MECHANISM}`,
    `sasl.mechanism.inter.broker.protocol=${STACK_SASL_MECHANISM}`,
    `listener.name.sasl_plaintext.scram-sha-512.sasl.jaas.config=${jaas('scram.ScramLoginModule', `username="${STACK_ADMIN}" password="${passwords.admin}"`)}`,
    'sasl.mechanism.controller.protocol=PLAIN',
    'listener.name.controller.sasl.enabled.mechanisms=PLAIN',
    `listener.name.controller.plain.sasl.jaas.config=${jaas('plain.PlainLoginModule', `username="controller" password="${passwords.controller}" user_controller="${passwords.controller}"`)}`,
    'authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer',
    'allow.everyone.if.no.acl.found=false',
    `super.users=User:${STACK_ADMIN};User:controller`,
    `log.dirs=${kafkaNodeFiles(config, node).dataDir}`,
    'num.partitions=1',
    `default.replication.factor=${factor}`,
    `offsets.topic.replication.factor=${factor}`,
    // Fewer coordinator partitions than production's 50: a fresh node is ready seconds sooner.
    'offsets.topic.num.partitions=6',
    'transaction.state.log.num.partitions=6',
    `transaction.state.log.replication.factor=${factor}`,
    `transaction.state.log.min.isr=${minIsr}`,
    `share.coordinator.state.topic.replication.factor=${factor}`,
    `share.coordinator.state.topic.min.isr=${minIsr}`,
    'group.initial.rebalance.delay.ms=0',
    // Topics are declared (packages/platform/src/topics.ts); a typo must fail, not create one.
    'auto.create.topics.enable=false',
    ...(config.kafkaNodes.length === 1 ? [] : clusterProperties(minIsr)),
    '',
  ].join('\n');
}

/**
 * What a node of a cluster on one machine adds: the topics' min ISR, few threads (three JVMs
 * share two cores with everything else), and a short broker session so that the controller
 * fences a killed node within about three seconds and `acks=all` writes resume.
 */
function clusterProperties(minIsr: number): readonly string[] {
  return [
    `min.insync.replicas=${minIsr}`,
    'num.network.threads=2',
    'num.io.threads=2',
    'background.threads=2',
    'num.replica.fetchers=1',
    'broker.session.timeout.ms=3000',
    'broker.heartbeat.interval.ms=500',
  ];
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

/**
 * Fetches the jars, writes the configuration, formats storage once (with every principal's SCRAM
 * credentials) and starts one node (the first unless `node` says which). Storage formatted by an
 * older `stack:up`, without authentication, is formatted again: a local stack keeps nothing the
 * gate cannot recreate.
 */
export async function startKafka(
  config: StackConfig,
  reporter: Reporter,
  node: KafkaNodePorts = firstNode(config),
): Promise<StartedProcess> {
  const java = findJava('kafka', MIN_JAVA.kafka, config.env);
  const libs = await fetchKafka(config, reporter);
  const files = kafkaNodeFiles(config, node);
  if (existsSync(files.dataDir) && !existsSync(securedMarker(config))) {
    reporter.line('kafka: storage was formatted without authentication; formatting it again');
    rmSync(files.dataDir, { recursive: true, force: true });
  }
  mkdirSync(files.dataDir, { recursive: true });
  const log4j = path.join(kafkaDir(config), 'log4j2.properties');
  const passwords = {
    admin: kafkaPassword(config, STACK_ADMIN),
    controller: controllerPassword(config),
  };
  writeSecretFile(files.properties, serverProperties(config, passwords, node));
  writeFileSync(log4j, LOG4J2_PROPERTIES);
  const jvm = [`-Dlog4j2.configurationFile=${log4j}`, '-cp', `${libs}${path.sep}*`];
  formatOnce(config, files, java.path, jvm);
  return spawnDetached({
    command: java.path,
    args: [
      ...kafkaJvmOptions(config),
      `-Dtoolgate.stack=${config.stackDir}`,
      ...jvm,
      'kafka.Kafka',
      files.properties,
    ],
    cwd: files.dir,
    logFile: files.log,
    pidFile: files.pidFile,
    env: config.env,
  });
}

/** Written once storage is formatted with SCRAM users: storage without it predates security. */
function securedMarker(config: StackConfig): string {
  return path.join(kafkaDir(config), 'secured');
}

/** The users storage was formatted with, or added since by {@link ensureScramUsers}. */
function knownUsersFile(config: StackConfig): string {
  return path.join(kafkaDir(config), 'scram-users.json');
}

function knownUsers(config: StackConfig): readonly string[] {
  const file = knownUsersFile(config);
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as string[]) : [];
}

/**
 * Heap kept modest: several JVMs and Node services share a 2-core machine; a node of three gets
 * at most 384 MiB (each holds a third of the partitions' leadership).
 */
function kafkaJvmOptions(config: StackConfig): readonly string[] {
  const heap = config.kafkaNodes.length === 1 ? ['-Xms256m', '-Xmx1g'] : ['-Xms256m', '-Xmx384m'];
  return [...heap, ...KAFKA_JVM_FLAGS];
}

const KAFKA_JVM_FLAGS = [
  '-XX:+UseG1GC',
  '-XX:MaxGCPauseMillis=20',
  '-XX:+ExitOnOutOfMemoryError',
  '-Djava.awt.headless=true',
];

/**
 * Formats a node's storage unless it is formatted, with the cluster id its sibling nodes have (a
 * new one for the first).
 */
function formatOnce(
  config: StackConfig,
  files: KafkaNodeFiles,
  java: string,
  jvm: readonly string[],
): void {
  if (existsSync(path.join(files.dataDir, 'meta.properties'))) return;
  const clusterId = existingClusterId(config) ?? newClusterId();
  const users = stackPrincipals();
  const passwords = kafkaPasswords(config, users);
  const scram = users.flatMap((user) => [
    '--add-scram',
    `${STACK_SASL_MECHANISM}=[name=${user},password=${passwords.get(user) ?? ''}]`,
  ]);
  const run = spawnSync(
    java,
    [
      ...jvm,
      'kafka.tools.StorageTool',
      'format',
      '-t',
      clusterId,
      '-c',
      files.properties,
      ...scram,
    ],
    { encoding: 'utf8', env: { ...config.env }, timeout: 120_000 },
  );
  const log = files.log;
  mkdirSync(config.logDir, { recursive: true });
  // The tool prints the bootstrap records, salted keys included: its output is not kept.
  const said = `${run.stdout}${run.stderr}`.replace(/password=[^\],\s]*/g, 'password=***');
  writeFileSync(`${log}.format`, run.status === 0 ? 'formatted\n' : said, { mode: 0o600 });
  if (run.status !== 0) {
    const why = problemIn(said);
    throw new StackError('kafka', `formatting storage failed: ${why}`, {
      logFile: `${log}.format`,
    });
  }
  writeFileSync(knownUsersFile(config), `${JSON.stringify(users)}\n`);
  writeFileSync(securedMarker(config), `${new Date().toISOString()}\n`);
}

/** The cluster id of a node of the stack's Kafka whose storage is formatted, if any. */
function existingClusterId(config: StackConfig): string | undefined {
  for (const node of config.kafkaNodes) {
    const meta = path.join(kafkaNodeFiles(config, node).dataDir, 'meta.properties');
    if (!existsSync(meta)) continue;
    const id = /^cluster\.id=(.+)$/m.exec(readFileSync(meta, 'utf8'))?.[1]?.trim();
    if (id !== undefined) return id;
  }
  return undefined;
}

/**
 * Adds the SCRAM users the stack has come to need since its storage was formatted (a principal
 * added to the ACL table), through the Admin API with a small Java program (kafkajs cannot).
 * Returns the users it added.
 */
export function ensureScramUsers(config: StackConfig): readonly string[] {
  const known = new Set(knownUsers(config));
  const missing = stackPrincipals().filter((u) => !known.has(u));
  if (missing.length === 0) return [];
  const java = findJava('kafka', MIN_JAVA.kafka, config.env);
  const adminProps = path.join(secretsDir(config), 'kafka-admin-client.properties');
  const admin = adminAccess(config).security.sasl;
  writeSecretFile(
    adminProps,
    [
      `bootstrap.servers=${config.addresses.kafkaBrokers.join(',')}`,
      'security.protocol=SASL_PLAINTEXT',
      `sasl.mechanism=${STACK_SASL_MECHANISM}`,
      `sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="${admin?.username ?? ''}" password="${admin?.password ?? ''}";`,
      '',
    ].join('\n'),
  );
  const passwords = kafkaPasswords(config, missing);
  const source = path.join(config.repoRoot, 'infra', 'java', 'ScramUsers.java');
  const run = spawnSync(
    java.path,
    ['-cp', `${kafkaLibDir(config)}${path.sep}*`, source, adminProps],
    {
      encoding: 'utf8',
      input: missing.map((u) => `${u} ${passwords.get(u) ?? ''}\n`).join(''),
      env: { ...config.env },
      timeout: 120_000,
    },
  );
  if (run.status !== 0) {
    throw new StackError(
      'kafka',
      `adding SCRAM users failed: ${problemIn(`${run.stdout}${run.stderr}`)}`,
    );
  }
  writeFileSync(knownUsersFile(config), `${JSON.stringify([...known, ...missing])}\n`);
  return missing;
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
