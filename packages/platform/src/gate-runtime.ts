/**
 * Opens what the stages of one process share: the Kafka bus, the registry codec (with every
 * message schema registered), the Redis store, the shared object store seeded with the
 * deployment's objects, and the ladder's facts. `close()` releases them in reverse order.
 */
import { createGate, MESSAGE_SCHEMAS, type Deployment } from '@toolgate/shared';
import { createBus, type Bus } from './bus.js';
import { createCodec, type Codec, type JsonSchemaObject } from './codec.js';
import type { Config } from './config.js';
import { createGateOutputs, type GateOutputs } from './gate-outputs.js';
import { gateTopics, type GateTopics } from './gate-topics.js';
import type { Logger } from './logger.js';
import { isRetriable } from './fault.js';
import { createRedisObjectStore, type RedisObjectStore } from './redis-object-store.js';
import { retryWhileRetriable } from './retry-backoff.js';
import { createStore, type Store, type StoreOptions } from './store.js';
import { topicsFor, TOPIC_NAMES, type TopicShortName } from './topics.js';

/** The namespace of the deployment's objects in the shared store. */
export const OBJECT_NAMESPACE = 'objects';

/** What {@link openGateRuntime} opened. */
export interface GateRuntime {
  readonly bus: Bus;
  readonly codec: Codec;
  readonly store: Store;
  readonly objects: RedisObjectStore;
  readonly topics: GateTopics;
  readonly outputs: GateOutputs;
  readonly gate: ReturnType<typeof createGate>;
  /** Closes the store and the bus; idempotent. */
  close(): Promise<void>;
}

/**
 * Checks the deployment (its tools, policies, session keys, ceilings) before connecting anything,
 * then connects, creates the deployment's topics when missing, registers every message schema and
 * seeds the deployment's objects (only those absent). Throws the deployment's configuration error
 * (every problem named) or a Fault when Kafka, the registry or Redis cannot be reached, after
 * closing what it opened.
 */
export async function openGateRuntime(
  config: Config,
  deployment: Deployment,
  logger: Logger,
  observeStore?: StoreOptions['observe'],
): Promise<GateRuntime> {
  const bus = createBus({
    brokers: [...config.kafkaBrokers],
    clientId: `toolgate-${config.instanceId}`,
    logger,
  });
  const store = createStore({
    url: config.redisUrl,
    prefix: config.redisPrefix,
    logger,
    connectionName: `toolgate-${config.instanceId}`,
    ...(observeStore === undefined ? {} : { observe: observeStore }),
  });
  const close = async () => {
    await store.close();
    await bus.close();
  };
  try {
    const objects = createRedisObjectStore(store, OBJECT_NAMESPACE);
    // Checked before anything is made for it: tool names become topics and schema subjects, and a
    // refused deployment is told as every problem it has, not as the first name that could not
    // become a topic, nor leaves topics behind. A deployment with a store of its own resolves from
    // it; otherwise from the shared store.
    const gate = createGate(deployment, deployment.objects === undefined ? { objects } : {});
    await store.ping();
    const tools = gate.registry.list().map((t) => t.name);
    const topics = gateTopics(config.topicPrefix);
    await bus.ensureTopics(
      topicsFor(tools).map((t) => ({ ...t, name: `${config.topicPrefix}${t.name}` })),
    );
    const codec = createCodec({
      registryUrl: config.schemaRegistryUrl,
      logger,
      compatibility: 'NONE',
    });
    await registerSchemas(codec, topics, tools, logger);
    const seeded = await objects.seed(deployment.seed ?? []);
    if (seeded > 0) logger.info({ seeded }, 'seeded the deployment objects that were missing');
    return {
      bus,
      codec,
      store,
      objects,
      topics,
      outputs: createGateOutputs(topics, config.integrityKey),
      gate,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

/** How long start-up waits for a busy or restarting registry before giving up: 2 minutes. */
export const REGISTRY_STARTUP_DEADLINE_MS = 120_000;

/** Registrations in flight at once: a registry under load answers a few faster than many. */
const REGISTER_CONCURRENCY = 4;

async function registerSchemas(
  codec: Codec,
  topics: GateTopics,
  tools: readonly string[],
  logger: Logger,
): Promise<void> {
  const fixed = (Object.keys(TOPIC_NAMES) as TopicShortName[]).filter((t) => t !== 'quarantine');
  const subjects: [string, JsonSchemaObject][] = [
    ...fixed.map((t): [string, JsonSchemaObject] => [`${topics[t]}-value`, MESSAGE_SCHEMAS[t]]),
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
