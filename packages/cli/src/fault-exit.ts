/** How faults from the platform (Kafka, the registry) become a one-line CLI error and exit code. */
import { Fault } from '@toolgate/platform';
import { CliError, EXIT } from './cli-error.js';

/**
 * A {@link CliError} for `error` raised while `doing` something: Kafka saying the topic does not
 * exist exits {@link EXIT.notFound}; a retriable fault (Kafka or the registry cannot be reached, a
 * read timed out) {@link EXIT.unavailable}; any other fault {@link EXIT.failed}. Anything that is
 * not a fault is returned unchanged.
 */
export function cliErrorOf(error: unknown, doing: string, topic?: string): unknown {
  if (error instanceof CliError || !(error instanceof Fault)) return error;
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
  let link: unknown = error;
  for (let depth = 0; depth < 8 && typeof link === 'object' && link !== null; depth += 1) {
    const e = link as { type?: unknown; cause?: unknown; originalError?: unknown };
    if (e.type === 'UNKNOWN_TOPIC_OR_PARTITION') return true;
    link = e.cause ?? e.originalError;
  }
  return false;
}
