/**
 * kafkajs's own log, routed to the gate's logger: warnings and errors as structured log calls,
 * lines that are routine for the gate at debug.
 */
import kafkajs, { type LogEntry } from 'kafkajs';
import type { AdapterLogger } from '../adapter-logger.js';

const { logLevel } = kafkajs;

// Lines kafkajs logs at warn or error that are routine for the gate: the coordinator answers
// CONCURRENT_TRANSACTIONS to the first request of a transaction begun right after the previous
// commit (retried within milliseconds: the transaction manager first, with our kafkajs patch,
// then the producer), and kafkajs warns that finite retries may break an idempotent producer's
// guarantees, which transactions keep (a failed send is aborted).
const ROUTINE = [
  /another concurrent operation on the same transaction/,
  /^Limiting retries for the idempotent producer/,
];

function isRoutine(message: string, fields: Readonly<Record<string, unknown>>): boolean {
  const error = typeof fields['error'] === 'string' ? fields['error'] : '';
  return ROUTINE.some((pattern) => pattern.test(message) || pattern.test(error));
}

/**
 * kafkajs's `logCreator` for `logger`: log lines at warn and above as structured log calls,
 * routine ones at debug. The method is called ON the logger: pino's methods need their `this`.
 */
export function logCreatorFor(logger: AdapterLogger) {
  return () =>
    ({ namespace, level, log }: LogEntry): void => {
      const { message, timestamp: _timestamp, logger: _logger, ...fields } = log;
      const entry = { kafkajs: namespace, ...fields };
      // Called as methods: a pino logger's methods read their logger from `this`, and a throw here
      // would surface inside kafkajs as the failure of whatever request it was logging about.
      if (isRoutine(message, fields)) logger.debug(entry, message);
      else if (level <= logLevel.ERROR) logger.error(entry, message);
      else logger.warn(entry, message);
    };
}
