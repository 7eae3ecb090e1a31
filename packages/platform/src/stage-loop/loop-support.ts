/** Small helpers the stage loop's modules share: log fields of an error, and timing. */
import { Fault } from '../fault.js';

/** The fields a log line gives an error: a Fault's code and whether it is retriable. */
export function errorFields(error: unknown): object {
  if (error instanceof Fault)
    return { code: error.code, retriable: error.retriable, err: error.message };
  if (error instanceof Error) return { err: `${error.name}: ${error.message}` };
  return { err: String(error) };
}

/** `error` as an Error, for values thrown that are not one. */
export function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

/** Seconds since `since`, a `performance.now()` reading. */
export function secondsSince(since: number): number {
  return (performance.now() - since) / 1000;
}
