/**
 * The logger the Kafka bus, the registry codec and the stage loop write to: the four pino methods
 * they call, so a pino logger fits as it is and a test can pass a recorder.
 */

/** One log method: structured fields first, then a message (pino's argument order). */
export type LogMethod = (fields: object, message: string) => void;

/** The logger the bus, the codec and the stage loop take. A pino logger fits. */
export interface AdapterLogger {
  readonly debug: LogMethod;
  readonly info: LogMethod;
  readonly warn: LogMethod;
  readonly error: LogMethod;
}

/** A logger that drops everything, for callers that have none. */
export const SILENT_LOGGER: AdapterLogger = Object.freeze({
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
});
