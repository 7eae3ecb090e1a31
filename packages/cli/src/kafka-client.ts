/**
 * How the CLI connects to Kafka: the brokers, this process's own Kafka identity (the
 * `TOOLGATE_KAFKA_*` SASL and TLS variables, checked as a whole) and the installation's prefixes.
 * Nothing else of the gate's configuration: no command needs TOOLGATE_INTEGRITY_KEY to talk to
 * Kafka, and whoever holds it could forge the gate's internal envelopes.
 */
import {
  CONFIG_VARIABLES,
  createBus,
  KAFKA_SECURITY_VARIABLES,
  kafkaSecurityOf,
  SILENT_LOGGER,
  loadVariables,
  type Bus,
  type ConfigOf,
  type Env,
} from '@toolgate/platform';
import { CliError, EXIT } from './cli-error.js';
import { cliErrorOf, kafkaRefusal } from './fault-exit.js';
import type { Prefixes } from './topic-name.js';

/** The variables every Kafka client of the CLI reads (see docs/configuration.md). */
export const KAFKA_CLIENT_VARIABLES = {
  KAFKA_BROKERS: CONFIG_VARIABLES.KAFKA_BROKERS,
  ...KAFKA_SECURITY_VARIABLES,
  TOPIC_PREFIX: CONFIG_VARIABLES.TOPIC_PREFIX,
  GROUP_PREFIX: CONFIG_VARIABLES.GROUP_PREFIX,
} as const;

/** The loaded {@link KAFKA_CLIENT_VARIABLES}. */
export type KafkaClientConfig = ConfigOf<typeof KAFKA_CLIENT_VARIABLES>;

/**
 * TOOLGATE_TOPIC_PREFIX and TOOLGATE_GROUP_PREFIX of `env` (default empty), alone: read before
 * the identity, so that a bad argument is reported before a missing variable.
 *
 * @throws ConfigError naming a bad prefix.
 */
export function prefixesOf(env: Env): Prefixes {
  return loadVariables(env, {
    TOPIC_PREFIX: CONFIG_VARIABLES.TOPIC_PREFIX,
    GROUP_PREFIX: CONFIG_VARIABLES.GROUP_PREFIX,
  });
}

/**
 * A bus as the configured identity. Connects lazily (on first use). A person is waiting: a broker
 * that does not answer is reported in seconds, not minutes.
 *
 * @throws Error naming the problem when a password or TLS file stopped being readable since the
 *   configuration was checked.
 */
export function cliBus(config: KafkaClientConfig): Bus {
  return createBus({
    brokers: config.kafkaBrokers,
    clientId: 'toolgate-cli',
    logger: SILENT_LOGGER,
    security: kafkaSecurityOf(config),
    requestTimeoutMs: 10_000,
    retries: 3,
  });
}

/**
 * A {@link CliError} for `error` raised while `doing` an administrator's work as `config`'s
 * identity: Kafka refusing that identity is said in one line naming its user and what the work
 * needs (exit 4); anything else as {@link cliErrorOf} says it.
 */
export function adminCliError(error: unknown, doing: string, config: KafkaClientConfig): unknown {
  const refusal = kafkaRefusal(error);
  if (refusal === undefined) return cliErrorOf(error, doing);
  const who = config.kafkaUsername === undefined ? 'this client' : `user ${config.kafkaUsername}`;
  return new CliError(
    `${doing}: Kafka refused ${who} (${refusal}): this needs a Kafka administrator's identity in TOOLGATE_KAFKA_*`,
    EXIT.denied,
    { cause: error },
  );
}
