/**
 * What `tail` and `stats` need to read topics: Kafka as this process's own identity, the schema
 * registry (to decode the wire format) and the prefixes, from TOOLGATE_* variables. Deliberately
 * not the gate's whole configuration: reading the audit trail must not require
 * TOOLGATE_INTEGRITY_KEY, which would let its holder forge the gate's internal envelopes.
 */
import {
  CONFIG_VARIABLES,
  createCodec,
  loadVariables,
  SILENT_LOGGER,
  type Bus,
  type Codec,
  type Env,
} from '@toolgate/platform';
import { cliBus, KAFKA_CLIENT_VARIABLES } from './kafka-client.js';

/** The variables a topic reader reads (see docs/configuration.md). */
export const READER_VARIABLES = {
  ...KAFKA_CLIENT_VARIABLES,
  SCHEMA_REGISTRY_URL: CONFIG_VARIABLES.SCHEMA_REGISTRY_URL,
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
 * A reader for `env`'s installation, as the Kafka identity of its TOOLGATE_KAFKA_* variables.
 * Connects lazily (on first read).
 *
 * @throws ConfigError listing every bad variable (a missing or half-given identity included).
 */
export function openTopicReader(env: Env): TopicReader {
  const config = loadVariables(env, READER_VARIABLES);
  const bus = cliBus(config);
  const codec = createCodec({ registryUrl: config.schemaRegistryUrl, logger: SILENT_LOGGER });
  return {
    bus,
    codec,
    topicPrefix: config.topicPrefix,
    groupPrefix: config.groupPrefix,
    close: () => bus.close(),
  };
}
