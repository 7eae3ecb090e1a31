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
  const host = '127.0.0.1';
  const redisCluster = readRedisMode(env, problems);
  const redisNodes = Array.from({ length: redisCluster ? REDIS_CLUSTER_NODES : 1 }, (_, i) => {
    return `${host}:${ports.redis + i}`;
  });
  const addresses: StackAddresses = {
    kafkaBrokers: readBrokers(env, problems) ?? [`${host}:${ports.kafka}`],
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
