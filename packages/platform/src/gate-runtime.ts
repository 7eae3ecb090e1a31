/**
 * Opens what the stages of one process share: the Kafka bus, the registry codec (with every
 * message schema registered), the Redis connection and the gate's stores on it, the shared object
 * store seeded with the
 * deployment's objects, and the ladder's facts. `close()` releases them in reverse order.
 */
import {
  type createGate,
  createObservationSigner,
  MESSAGE_SCHEMAS,
  type Deployment,
} from '@toolgate/shared';
import {
  aclTable,
  GATE_STAGE_NAMES,
  stagePrincipal,
  topicsOfPrincipal,
  type GateStageName,
} from './acls.js';
import { createCodec, type Codec, type JsonSchemaObject } from './codec.js';
import type { Config } from './config.js';
import { createGateOutputs, type GateOutputs } from './gate-outputs.js';
import { gateTopics, type GateTopics } from './gate-topics.js';
import type { Logger } from './logger.js';
import { isRetriable } from './fault.js';
import { createGateStore, type GateStore } from './redis/gate-store.js';
import {
  connectRedis,
  type RedisConnection,
  type RedisConnectionOptions,
} from './redis/redis-connection.js';
import { createRedisObjectStore, type RedisObjectStore } from './redis/redis-object-store.js';
import { Fault, type FaultCode } from './fault.js';
import {
  createBus,
  describeKafkaSecurity,
  kafkaSecurityOf,
  type Bus,
  type KafkaSecurity,
} from './kafka/index.js';
import { retryWhileRetriable } from './retry-backoff.js';
import { createGateWithSessionKeys } from './session-keys/index.js';
import { TOPIC_NAMES, type TopicShortName } from './topics.js';

/** The namespace of the deployment's objects in the shared store. */
export const OBJECT_NAMESPACE = 'objects';

/** What {@link openGateRuntime} opened. */
export interface GateRuntime {
  /** The bus of the process's own Kafka identity (TOOLGATE_KAFKA_*). */
  readonly bus: Bus;
  /** The bus a stage uses: its own identity's, when it was given one, else {@link bus}'s. */
  busFor(stage: GateStageName): Bus;
  readonly codec: Codec;
  /** The Redis connection the stores share. */
  readonly redis: RedisConnection;
  /** The gate's stores on {@link redis}; each stage is handed the parts it uses. */
  readonly store: GateStore;
  readonly objects: RedisObjectStore;
  readonly topics: GateTopics;
  readonly outputs: GateOutputs;
  readonly gate: ReturnType<typeof createGate>;
  /** Closes the Redis connection and the bus; idempotent. */
  close(): Promise<void>;
}

/** Fault code: a stage cannot see a topic it needs (missing, or no ACL lets it). */
export const TOPICS_UNSEEN = 'topics_unseen' satisfies FaultCode;

/** Options of {@link openGateRuntime}. */
export interface GateRuntimeOptions {
  /** Told every Redis call (for metrics). */
  readonly observeStore?: RedisConnectionOptions['observe'];
  /** The stages this process runs: each checks it can see its topics. Default all four. */
  readonly stages?: readonly GateStageName[];
  /**
   * A Kafka identity per stage, for several stages in one process that must each act as their
   * own principal (tests, a demo); a stage without one uses the process's identity.
   */
  readonly identities?: Partial<Record<GateStageName, KafkaSecurity>>;
}

/**
 * Checks the deployment (its tools, tenants, policies, session keys, ceilings) before connecting
 * anything, then connects as the process's Kafka identity (and each stage's own, when given),
 * checks that every stage sees the topics its ACLs name (the gate creates no topic: an operator
 * does, with `toolgate topics create`), registers every message schema and seeds the deployment's
 * objects (only those absent). Throws the deployment's configuration error (every problem named),
 * a `topics_unseen` Fault naming what a stage cannot see, or a Fault when Kafka, the registry or
 * Redis cannot be reached, after closing what it opened.
 */
export async function openGateRuntime(
  config: Config,
  deployment: Deployment,
  logger: Logger,
  options: GateRuntimeOptions = {},
): Promise<GateRuntime> {
  const security = kafkaSecurityOf(config);
  const bus = createBus({
    brokers: [...config.kafkaBrokers],
    clientId: `toolgate-${config.instanceId}`,
    logger,
    security,
  });
  const buses = new Map<GateStageName, Bus>();
  for (const [stage, identity] of Object.entries(options.identities ?? {})) {
    const own = createBus({
      brokers: [...config.kafkaBrokers],
      clientId: `toolgate-${stage}-${config.instanceId}`,
      logger,
      security: identity,
    });
    buses.set(stage as GateStageName, own);
  }
  const busFor = (stage: GateStageName) => buses.get(stage) ?? bus;
  logger.info({ kafka: describeKafkaSecurity(security) }, 'Kafka identity');
  const redis = connectRedis({
    url: config.redisUrl,
    prefix: config.redisPrefix,
    logger,
    connectionName: `toolgate-${config.instanceId}`,
    ...(options.observeStore === undefined ? {} : { observe: options.observeStore }),
  });
  const close = async () => {
    await redis.close();
    for (const own of buses.values()) await own.close();
    await bus.close();
  };
  try {
    const objects = createRedisObjectStore(redis, OBJECT_NAMESPACE);
    // Checked before anything is made for it: tool names become topics and schema subjects, and a
    // refused deployment is told as every problem it has, not as the first name that could not
    // become a topic, nor leaves topics behind. A deployment with a store of its own resolves from
    // it; otherwise from the shared store.
    const gate = createGateWithSessionKeys(
      deployment,
      deployment.objects === undefined ? { objects } : {},
      logger,
    );
    await waitForRedis(redis, logger);
    const tools = gate.registry.list().map((t) => t.name);
    const topics = gateTopics(config.topicPrefix);
    const table = aclTable({
      topicPrefix: config.topicPrefix,
      groupPrefix: config.groupPrefix,
      tools,
      tenants: [...gate.tenants],
      workers: [],
    });
    for (const stage of options.stages ?? GATE_STAGE_NAMES) {
      const needed = topicsOfPrincipal(table, stagePrincipal(stage));
      const unseen = await unseenAfterWaiting(busFor(stage), needed);
      if (unseen.length > 0) throw topicsUnseen(stage, unseen);
    }
    const codec = createCodec({
      registryUrl: config.schemaRegistryUrl,
      logger,
      compatibility: 'NONE',
    });
    await registerSchemas(codec, topics, tools, [...gate.tenants], logger);
    const seeded = await objects.seed(deployment.seed ?? []);
    if (seeded > 0) logger.info({ seeded }, 'seeded the deployment objects that were missing');
    return {
      bus,
      busFor,
      codec,
      redis,
      store: createGateStore(redis),
      objects,
      topics,
      outputs: createGateOutputs(
        topics,
        {
          integrityKey: config.integrityKey,
          observationSigner: createObservationSigner(config.observationKey),
          ...(config.commandKey === undefined ? {} : { commandKey: config.commandKey }),
        },
        gate.tenants,
      ),
      gate,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

/**
 * How long a process waits for topics it cannot see yet: topics and ACLs made just before it
 * started reach the broker's authorizer a moment later. 10 s.
 */
export const TOPICS_SEEN_WITHIN_MS = 10_000;

/**
 * The topics of `names` this identity still cannot see after waiting up to
 * {@link TOPICS_SEEN_WITHIN_MS} for them (looking again every 250 ms).
 */
export async function unseenAfterWaiting(
  bus: Bus,
  names: readonly string[],
  withinMs = TOPICS_SEEN_WITHIN_MS,
): Promise<readonly string[]> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const unseen = await bus.unseenTopics(names);
    if (unseen.length === 0 || Date.now() >= deadline) return unseen;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

function topicsUnseen(stage: GateStageName, unseen: readonly string[]): Fault {
  return new Fault(
    TOPICS_UNSEEN,
    `the ${stage} stage cannot see ${unseen.join(', ')}: the topic is missing, or no ACL lets its Kafka principal use it. Create the topics and ACLs first (\`npx toolgate topics create\` and \`npx toolgate acls apply\` with an admin identity, or \`npm run stack:up\` for the local stack)`,
  );
}

/**
 * How long start-up waits for Redis to answer: 30 s. A Redis Cluster's client is ready only once it
 * has reached every node and learnt the slots, which a process busy starting may take more than
 * one command's bound to do.
 */
export const REDIS_STARTUP_DEADLINE_MS = 30_000;

/** Resolves once Redis answers PING, retrying retriable faults until REDIS_STARTUP_DEADLINE_MS. */
async function waitForRedis(redis: RedisConnection, logger: Logger): Promise<void> {
  await retryWhileRetriable(() => redis.ping(), {
    deadlineMs: REDIS_STARTUP_DEADLINE_MS,
    retriable: isRetriable,
    onRetry: (attempt, error, delayMs) =>
      logger.warn(
        { attempt, delayMs, err: error instanceof Error ? error.message : String(error) },
        'redis busy or unreachable at start-up; retrying',
      ),
  });
}

/** How long start-up waits for a busy or restarting registry before giving up: 2 minutes. */
export const REGISTRY_STARTUP_DEADLINE_MS = 120_000;

/** Registrations in flight at once: a registry under load answers a few faster than many. */
const REGISTER_CONCURRENCY = 4;

const NOT_REGISTERED_BY_STAGES = [
  'quarantine',
  'observations',
  'refusalStats',
  'alerts',
  'windowState',
] as const;

async function registerSchemas(
  codec: Codec,
  topics: GateTopics,
  tools: readonly string[],
  tenants: readonly string[],
  logger: Logger,
): Promise<void> {
  // Quarantine keeps raw bytes; `observations` names no topic of its own, only each tenant's;
  // the analytics service registers the schemas of what it alone writes.
  const fixed = (Object.keys(TOPIC_NAMES) as TopicShortName[]).filter(
    (t): t is Exclude<TopicShortName, (typeof NOT_REGISTERED_BY_STAGES)[number]> =>
      !(NOT_REGISTERED_BY_STAGES as readonly string[]).includes(t),
  );
  const subjects: [string, JsonSchemaObject][] = [
    ...fixed.map((t): [string, JsonSchemaObject] => [`${topics[t]}-value`, MESSAGE_SCHEMAS[t]]),
    ...tenants.map((tenant): [string, JsonSchemaObject] => [
      `${topics.observationsOf(tenant)}-value`,
      MESSAGE_SCHEMAS.observations,
    ]),
    ...tools.map((tool): [string, JsonSchemaObject] => [
      `${topics.command(tool)}-value`,
      MESSAGE_SCHEMAS.commands,
    ]),
  ];
  const register = ([subject, schema]: [string, JsonSchemaObject]) =>
    retryWhileRetriable(() => codec.register(subject, schema), {
      deadlineMs: REGISTRY_STARTUP_DEADLINE_MS,
      retriable: isRetriable,
      onRetry: (attempt, error, delayMs) =>
        logger.warn(
          {
            subject,
            attempt,
            delayMs,
            err: error instanceof Error ? error.message : String(error),
          },
          'schema registry busy or unreachable at start-up; retrying',
        ),
    });
  for (let i = 0; i < subjects.length; i += REGISTER_CONCURRENCY) {
    await Promise.all(subjects.slice(i, i + REGISTER_CONCURRENCY).map(register));
  }
}
