/** How faults from the platform (Kafka, the registry) become a one-line CLI error and exit code. */
import { Fault } from '@toolgate/platform';
import { CliError, EXIT } from './cli-error.js';

/**
 * A {@link CliError} for `error` raised while `doing` something: Kafka refusing this identity (a
 * failed SASL login, an operation its ACLs do not allow) exits {@link EXIT.denied}; Kafka saying
 * the topic does not exist {@link EXIT.notFound}; a retriable fault (Kafka or the registry cannot
 * be reached, a read timed out) {@link EXIT.unavailable}; any other fault {@link EXIT.failed}.
 * Anything that is not a fault is returned unchanged.
 */
export function cliErrorOf(error: unknown, doing: string, topic?: string): unknown {
  if (error instanceof CliError || !(error instanceof Fault)) return error;
  const refusal = kafkaRefusal(error);
  if (refusal !== undefined) {
    const why =
      refusal === 'TOPIC_AUTHORIZATION_FAILED' && topic !== undefined
        ? `it may not read ${topic}, or the topic does not exist (Kafka does not tell the two apart to a principal that may not see it)`
        : 'check TOOLGATE_KAFKA_USERNAME and its password, and that its ACLs allow this';
    return new CliError(`${doing}: Kafka refused this identity (${refusal}): ${why}`, EXIT.denied, {
      cause: error,
    });
  }
  if (topic !== undefined && saysUnknownTopic(error)) {
    return new CliError(
      `${doing}: topic ${topic} does not exist (is TOOLGATE_TOPIC_PREFIX right? is the gate deployed there?)`,
      EXIT.notFound,
      { cause: error },
    );
  }
  const unavailable = error.retriable || error.code.endsWith('_unavailable');
  return new CliError(
    `${doing}: ${error.message} (${error.code})`,
    unavailable ? EXIT.unavailable : EXIT.failed,
    { cause: error },
  );
}

/** True when Kafka's answer, somewhere in the cause chain, was UNKNOWN_TOPIC_OR_PARTITION. */
export function saysUnknownTopic(error: unknown): boolean {
  return causes(error).some((e) => e.type === 'UNKNOWN_TOPIC_OR_PARTITION');
}

/**
 * Why Kafka refused this client, when it did: the protocol error of an operation its ACLs do not
 * allow (`CLUSTER_AUTHORIZATION_FAILED`, `TOPIC_AUTHORIZATION_FAILED`, …) or a failed SASL login
 * (`SASL_AUTHENTICATION_FAILED`); undefined for any other error.
 */
export function kafkaRefusal(error: unknown): string | undefined {
  for (const e of causes(error)) {
    if (typeof e.type === 'string' && REFUSED.test(e.type)) return e.type;
    if (e.name === 'KafkaJSSASLAuthenticationError') return 'SASL_AUTHENTICATION_FAILED';
  }
  return undefined;
}

const REFUSED = /^(?:[A-Z_]+_AUTHORIZATION_FAILED|SASL_AUTHENTICATION_FAILED)$/;

/**
 * The error and its causes (kafkajs keeps some under `originalError`), at most 8 deep, each
 * followed by the errors it aggregates (kafkajs's `errors`, one per topic of a request).
 */
function causes(error: unknown): ErrorLink[] {
  const chain: ErrorLink[] = [];
  let link: unknown = error;
  for (let depth = 0; depth < 8 && typeof link === 'object' && link !== null; depth += 1) {
    const e = link as ErrorLink;
    chain.push(e, ...(Array.isArray(e.errors) ? (e.errors as unknown[]).filter(isObject) : []));
    link = e.cause ?? e.originalError;
  }
  return chain;
}

interface ErrorLink {
  readonly type?: unknown;
  readonly name?: unknown;
  readonly cause?: unknown;
  readonly originalError?: unknown;
  readonly errors?: unknown;
}

function isObject(value: unknown): value is ErrorLink {
  return typeof value === 'object' && value !== null;
}
