/**
 * The faults the Redis store throws, made in this one module: while Redis cannot be reached
 * (retriable: the stage pauses and delivers again), when it refuses a command for a reason a retry
 * cannot fix, and when a stored value is not what the gate wrote. Never "no record" for "could not
 * ask".
 */
import { Fault, type FaultCode } from '../fault.js';

/** Fault codes the store throws. */
export const STORE_FAULTS = {
  /** Redis could not be reached or did not answer in time (retriable: pause and try again). */
  unavailable: 'redis_unavailable',
  /** Redis refused a command for a reason that a retry cannot fix (wrong type, script error). */
  error: 'redis_error',
  /** A stored value is not what the gate wrote (not retriable). */
  corrupt: 'store_corrupt',
} as const satisfies Record<string, FaultCode>;

/** `redis_unavailable`: operation `op` could not be sent or answered, because `why`. */
export function unavailable(op: string, why: string, cause?: unknown): Fault {
  return new Fault(STORE_FAULTS.unavailable, `redis ${op}: ${why}`, { cause });
}

/**
 * The fault of a failed operation `op`. A reply error that a retry cannot fix is `redis_error`
 * (not retriable): a wrong key type, an unknown command (a Redis older than 6.2) or an error
 * inside a script is a bug, foreign data or a deployment fault, and pausing the stage forever
 * would not help. Everything else (connection loss, timeouts, LOADING, BUSY, READONLY, OOM, auth,
 * max clients) may pass, so it is `redis_unavailable` and the stage waits.
 */
export function faultOf(error: unknown, op: string): Fault {
  if (error instanceof Fault) return error;
  const message = error instanceof Error ? error.message : String(error);
  const permanent =
    error instanceof Error &&
    error.name === 'ReplyError' &&
    /^(WRONGTYPE|CROSSSLOT|ERR (unknown command|wrong number of arguments|syntax error)|ERR .*script)/i.test(
      message,
    );
  if (!permanent) return unavailable(op, message, error);
  return new Fault(STORE_FAULTS.error, `redis ${op}: ${message}`, { cause: error });
}

/** `store_corrupt`: `what` under `key` is not what the gate wrote. */
export function corrupt(what: string, key: string, cause?: unknown): Fault {
  return new Fault(STORE_FAULTS.corrupt, `${what} under ${key} is not what the gate wrote`, {
    cause,
  });
}
