/**
 * What `tail` and `stats` need to read topics: Kafka, the schema registry (to decode the wire
 * format) and the prefixes, from TOOLGATE_* variables. Deliberately not the gate's whole
 * configuration: reading the audit trail must not require TOOLGATE_INTEGRITY_KEY, which would
 * let its holder forge the gate's internal envelopes.
 */
import {
  CONFIG_VARIABLES,
  createBus,
  createCodec,
  loadVariables,
  SILENT_LOGGER,
  type Bus,
  type Codec,
  type Env,
} from '@toolgate/platform';

/** The variables a topic reader reads (see docs/configuration.md). */
export const READER_VARIABLES = {
  KAFKA_BROKERS: CONFIG_VARIABLES.KAFKA_BROKERS,
  SCHEMA_REGISTRY_URL: CONFIG_VARIABLES.SCHEMA_REGISTRY_URL,
  TOPIC_PREFIX: CONFIG_VARIABLES.TOPIC_PREFIX,
  GROUP_PREFIX: CONFIG_VARIABLES.GROUP_PREFIX,
} as const;

/** An open connection to the topics of one installation. */
export interface TopicReader {
  readonly bus: Bus;
  readonly codec: Codec;
  /** TOOLGATE_TOPIC_PREFIX. */
  readonly topicPrefix: string;
  /** TOOLGATE_GROUP_PREFIX: the throwaway reader groups are named under it. */
  readonly groupPrefix: string;
  /** Disconnects the bus's admin client. Idempotent. */
  close(): Promise<void>;
}

/**
 * A reader for `env`'s installation. Connects lazily (on first read).
 *
 * @throws ConfigError listing every bad variable.
 */
export function openTopicReader(env: Env): TopicReader {
  const config = loadVariables(env, READER_VARIABLES);
  const bus = createBus({
    brokers: config.kafkaBrokers,
    clientId: 'toolgate-cli',
    logger: SILENT_LOGGER,
    // A person is waiting: a broker that does not answer is reported in seconds, not minutes.
    requestTimeoutMs: 10_000,
    retries: 3,
  });
  const codec = createCodec({ registryUrl: config.schemaRegistryUrl, logger: SILENT_LOGGER });
  return {
    bus,
    codec,
    topicPrefix: config.topicPrefix,
    groupPrefix: config.groupPrefix,
    close: () => bus.close(),
  };
}
