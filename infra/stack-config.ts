/**
 * Where the local stack lives and what it talks to, read once from the environment. Every address
 * can be pointed at existing infrastructure; a component whose address is given that way is
 * external: `stack:up` checks it answers and starts nothing for it, `stack:down` leaves it alone.
 */
import path from 'node:path';
import { StackError } from './stack-error.js';

/** Kafka broker version fetched from Maven Central (`org.apache.kafka:kafka_2.13`). */
export const KAFKA_VERSION = '4.4.0';

/** The log4j2 version `kafka_2.13:KAFKA_VERSION` depends on; its SLF4J binding must match. */
export const LOG4J_VERSION = '2.25.5';

/** Apicurio Registry version (`io.apicurio:apicurio-registry-app`, the `all` tar.gz). */
export const APICURIO_VERSION = '3.3.3';

/** Lowest Java release each Java component runs on. */
export const MIN_JAVA = { kafka: 17, registry: 21 } as const;

/** The stack's components, in start order (the registry keeps its schemas in Kafka). */
export const COMPONENTS = ['redis', 'kafka', 'registry'] as const;

/** One component of the stack. */
export type ComponentName = (typeof COMPONENTS)[number];

/** The environment variables that point a component at existing infrastructure. */
export const OVERRIDES = {
  redis: 'TOOLGATE_REDIS_URL',
  kafka: 'TOOLGATE_KAFKA_BROKERS',
  registry: 'TOOLGATE_SCHEMA_REGISTRY_URL',
} as const satisfies Record<ComponentName, string>;

/** Local ports of the managed stack, each overridable by `TOOLGATE_STACK_<NAME>_PORT`. */
export const DEFAULT_PORTS = {
  redis: 6380,
  kafka: 9092,
  kafkaController: 9093,
  registry: 8081,
  registryManagement: 9081,
  redisClusterBus: 16380,
} as const;

/** Node counts the stack's own Kafka runs with (TOOLGATE_STACK_KAFKA_NODES, default 1). */
export const KAFKA_NODE_COUNTS = [1, 3] as const;

/**
 * How far apart consecutive Kafka nodes' ports are: node `n` (1-based) listens on
 * TOOLGATE_STACK_KAFKA_PORT + 2(n−1) and its controller on TOOLGATE_STACK_KAFKA_CONTROLLER_PORT +
 * 2(n−1), so the default ports pair up per node (9092/9093, 9094/9095, 9096/9097).
 */
export const KAFKA_NODE_PORT_STEP = 2;

/** One KRaft node (broker and controller in one JVM) of the stack's own Kafka. */
export interface KafkaNodePorts {
  /** Its `node.id`, 1-based. */
  readonly id: number;
  /** The SASL/SCRAM client listener. */
  readonly port: number;
  /** The controller listener. */
  readonly controllerPort: number;
}

/** The nodes of a managed Redis Cluster (TOOLGATE_STACK_REDIS=cluster). */
export const REDIS_CLUSTER_NODES = 6;

/** Where each component answers, as clients need it. */
export interface StackAddresses {
  /** Kafka bootstrap servers, `host:port`. */
  readonly kafkaBrokers: readonly string[];
  /** Base URL of the Confluent-compatible schema registry API. */
  readonly schemaRegistryUrl: string;
  /** `redis://` URL. */
  readonly redisUrl: string;
}

/** The stack's configuration: addresses, which components it manages, local ports and paths. */
export interface StackConfig {
  readonly addresses: StackAddresses;
  /** Components given by an override variable: checked, never started or stopped. */
  readonly external: ReadonlySet<ComponentName>;
  readonly ports: { readonly [K in keyof typeof DEFAULT_PORTS]: number };
  /** The nodes of the stack's own Kafka (one unless TOOLGATE_STACK_KAFKA_NODES says three). */
  readonly kafkaNodes: readonly KafkaNodePorts[];
  /** Loopback address every managed component binds to. */
  readonly host: string;
  /**
   * TOOLGATE_STACK_REDIS=cluster: a managed Redis is a Redis Cluster of six nodes on ports
   * `redis` to `redis + 5` (cluster bus `redisClusterBus` to `redisClusterBus + 5`); default one
   * server on `redis`.
   */
  readonly redisCluster: boolean;
  readonly repoRoot: string;
  /** Root of everything the stack writes (default `<repo>/.stack`, ignored by git). */
  readonly stackDir: string;
  readonly logDir: string;
  /** Pid files of the processes `stack:up` started. */
  readonly runDir: string;
  /** The environment, for finding `java`, `mvn` and `redis-server` and passing to children. */
  readonly env: Readonly<Record<string, string | undefined>>;
}

const PORT_VARS = {
  redis: 'TOOLGATE_STACK_REDIS_PORT',
  kafka: 'TOOLGATE_STACK_KAFKA_PORT',
  kafkaController: 'TOOLGATE_STACK_KAFKA_CONTROLLER_PORT',
  registry: 'TOOLGATE_STACK_REGISTRY_PORT',
  registryManagement: 'TOOLGATE_STACK_REGISTRY_MANAGEMENT_PORT',
  redisClusterBus: 'TOOLGATE_STACK_REDIS_CLUSTER_BUS_PORT',
} as const satisfies Record<keyof typeof DEFAULT_PORTS, string>;

/**
 * Reads the stack's configuration from `env`. Reports every problem at once as one `StackError`
 * of component `config`. `repoRoot` anchors the default `.stack/` directory.
 */
export function loadStackConfig(
  env: Readonly<Record<string, string | undefined>>,
  repoRoot: string,
): StackConfig {
  const problems: string[] = [];
  const ports = readPorts(env, problems);
  const kafkaNodes = nodePorts(ports, readNodeCount(env, problems));
  checkDistinct(ports, kafkaNodes, problems);
  const host = '127.0.0.1';
  const redisCluster = readRedisMode(env, problems);
  const redisNodes = Array.from({ length: redisCluster ? REDIS_CLUSTER_NODES : 1 }, (_, i) => {
    return `${host}:${ports.redis + i}`;
  });
  const addresses: StackAddresses = {
    kafkaBrokers: readBrokers(env, problems) ?? kafkaNodes.map((n) => `${host}:${n.port}`),
    schemaRegistryUrl:
      readUrl(env, OVERRIDES.registry, ['http:', 'https:'], problems) ??
      `http://${host}:${ports.registry}/apis/ccompat/v7`,
    redisUrl: readRedisUrl(env, problems) ?? `redis://${redisNodes.join(',')}`,
  };
  if (problems.length > 0) throw new StackError('config', problems.join('; '));
  const stackDir = path.resolve(repoRoot, env['TOOLGATE_STACK_DIR'] ?? '.stack');
  return Object.freeze({
    addresses: Object.freeze(addresses),
    external: new Set(COMPONENTS.filter((c) => nonEmpty(env[OVERRIDES[c]]) !== undefined)),
    ports,
    kafkaNodes: Object.freeze(kafkaNodes),
    host,
    redisCluster,
    repoRoot,
    stackDir,
    logDir: path.join(stackDir, 'logs'),
    runDir: path.join(stackDir, 'run'),
    env,
  });
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed === undefined || trimmed === '' ? undefined : trimmed;
}

function readPorts(
  env: Readonly<Record<string, string | undefined>>,
  problems: string[],
): StackConfig['ports'] {
  const entries = Object.entries(PORT_VARS).map(([key, variable]) => {
    const raw = nonEmpty(env[variable]);
    const fallback = DEFAULT_PORTS[key as keyof typeof DEFAULT_PORTS];
    if (raw === undefined) return [key, fallback] as const;
    const port = Number(raw);
    if (!Number.isInteger(port) || port < 1 || port > 65_535) {
      problems.push(`${variable}=${raw} is not a TCP port (1-65535)`);
      return [key, fallback] as const;
    }
    return [key, port] as const;
  });
  return Object.freeze(Object.fromEntries(entries) as StackConfig['ports']);
}

const NODES_VAR = 'TOOLGATE_STACK_KAFKA_NODES';

function readNodeCount(
  env: Readonly<Record<string, string | undefined>>,
  problems: string[],
): number {
  const raw = nonEmpty(env[NODES_VAR]);
  if (raw === undefined) return 1;
  const count = Number(raw);
  if (!(KAFKA_NODE_COUNTS as readonly number[]).includes(count)) {
    problems.push(
      `${NODES_VAR}=${raw} is not a node count the stack runs: 1 (one node) or 3 (three nodes, replication factor 3, min.insync.replicas 2)`,
    );
    return 1;
  }
  if (count !== 1 && nonEmpty(env[OVERRIDES.kafka]) !== undefined) {
    problems.push(
      `${NODES_VAR}=${raw} sizes the stack's own Kafka, but ${OVERRIDES.kafka} points at another one: unset one of them`,
    );
  }
  return count;
}

function nodePorts(ports: StackConfig['ports'], count: number): KafkaNodePorts[] {
  return Array.from({ length: count }, (_, i) => ({
    id: i + 1,
    port: ports.kafka + KAFKA_NODE_PORT_STEP * i,
    controllerPort: ports.kafkaController + KAFKA_NODE_PORT_STEP * i,
  }));
}

/** Every local port of the stack is used once, and exists. */
function checkDistinct(
  ports: StackConfig['ports'],
  nodes: readonly KafkaNodePorts[],
  problems: string[],
): void {
  const owners = new Map<number, string>();
  const claim = (port: number, owner: string): void => {
    const other = owners.get(port);
    if (port > 65_535) problems.push(`${owner} would listen on ${port}, beyond 65535`);
    else if (other === undefined) owners.set(port, owner);
    else problems.push(`${other} and ${owner} would both listen on port ${port}`);
  };
  claim(ports.redis, PORT_VARS.redis);
  claim(ports.registry, PORT_VARS.registry);
  claim(ports.registryManagement, PORT_VARS.registryManagement);
  for (const node of nodes) {
    const which = nodes.length === 1 ? '' : ` (node ${node.id})`;
    claim(node.port, `${PORT_VARS.kafka}${which}`);
    claim(node.controllerPort, `${PORT_VARS.kafkaController}${which}`);
  }
}

function readBrokers(
  env: Readonly<Record<string, string | undefined>>,
  problems: string[],
): readonly string[] | undefined {
  const raw = nonEmpty(env[OVERRIDES.kafka]);
  if (raw === undefined) return undefined;
  const brokers = raw.split(',').map((b) => b.trim());
  const bad = brokers.filter((b) => !/^[^\s:/]+:\d{1,5}$/.test(b));
  if (bad.length > 0) {
    problems.push(`${OVERRIDES.kafka} needs host:port[,host:port…], got ${bad.join(', ')}`);
  }
  return brokers;
}

/** TOOLGATE_STACK_REDIS: `server` (the default) or `cluster`. */
function readRedisMode(
  env: Readonly<Record<string, string | undefined>>,
  problems: string[],
): boolean {
  const raw = nonEmpty(env['TOOLGATE_STACK_REDIS']) ?? 'server';
  if (raw !== 'server' && raw !== 'cluster') {
    problems.push(`TOOLGATE_STACK_REDIS=${raw} is neither server nor cluster`);
  }
  return raw === 'cluster';
}

/** TOOLGATE_REDIS_URL: one server's URL, or a cluster's nodes (`redis://h1:p1,h2:p2`). */
function readRedisUrl(
  env: Readonly<Record<string, string | undefined>>,
  problems: string[],
): string | undefined {
  const raw = nonEmpty(env[OVERRIDES.redis]);
  if (raw === undefined || !raw.includes(',')) {
    return readUrl(env, OVERRIDES.redis, ['redis:', 'rediss:'], problems);
  }
  if (!/^rediss?:\/\/([^@/\s]*@)?[^@/\s,]+(,[^@/\s,]+)+\/?$/.test(raw)) {
    problems.push(
      `${OVERRIDES.redis}=${withoutPassword(raw)} is not a redis:// URL of cluster nodes`,
    );
  }
  return raw.replace(/\/+$/, '');
}

function readUrl(
  env: Readonly<Record<string, string | undefined>>,
  variable: string,
  protocols: readonly string[],
  problems: string[],
): string | undefined {
  const raw = nonEmpty(env[variable]);
  if (raw === undefined) return undefined;
  if (!URL.canParse(raw) || !protocols.includes(new URL(raw).protocol)) {
    problems.push(`${variable}=${raw} is not a ${protocols.join(' or ')} URL`);
  }
  return raw.replace(/\/+$/, '');
}

/** How every topic on the stack's own Kafka is replicated, its internal topics included. */
export interface TopicReplication {
  /** Copies of each partition: one per node, three at most. */
  readonly replicationFactor: number;
  /** In-sync copies an `acks=all` write needs: two with three nodes, so one node may fail. */
  readonly minInsyncReplicas: number;
}

/** The replication of the stack's own Kafka: factor min(3, nodes), min ISR 2 from three nodes. */
export function kafkaReplication(config: StackConfig): TopicReplication {
  const nodes = config.kafkaNodes.length;
  return { replicationFactor: Math.min(3, nodes), minInsyncReplicas: nodes >= 3 ? 2 : 1 };
}

/** The address a component answers at, as a person reads it. */
export function addressOf(config: StackConfig, component: ComponentName): string {
  switch (component) {
    case 'redis':
      return withoutPassword(config.addresses.redisUrl);
    case 'kafka':
      return config.addresses.kafkaBrokers.join(',');
    case 'registry':
      return withoutPassword(config.addresses.schemaRegistryUrl);
  }
}

function withoutPassword(url: string): string {
  // A cluster's URL lists several nodes, which URL cannot parse.
  if (url.includes(',')) return url.replace(/^(\w+:\/\/[^:@/]*):[^@/]*@/, '$1:***@');
  const parsed = new URL(url);
  if (parsed.password === '') return url;
  parsed.password = '***';
  return parsed.toString();
}
