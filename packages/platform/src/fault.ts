/**
 * Faults are exceptions with a catalogued code (kafkajs's most useful idea): "could not answer",
 * as opposed to a refusal, which is a value. The code decides whether a fault is retriable (see
 * {@link FAULT_CODES} and docs/fault-codes.md). The one stage loop applies one policy: retriable →
 * pause and deliver again; not retriable → an internal_error audit event and a terminal
 * observation, then move on.
 */
import { FAULT_CODES, type FaultCode } from './fault-codes.js';

export { FAULT_CODES, type FaultCode, type FaultSpec } from './fault-codes.js';

/** Options of a {@link Fault}. */
export interface FaultOptions {
  /** The error that led to this fault, kept as its `cause`. */
  readonly cause?: unknown;
  /**
   * Ignored: the catalogue decides, by code. Accepted only so that code written before the
   * catalogue still compiles.
   * @deprecated Leave it out; `retriable` comes from {@link FAULT_CODES}.
   */
  readonly retriable?: boolean;
}

/** A failure to answer, not a refusal. */
export class Fault extends Error {
  /** A catalogued code (e.g. `redis_unavailable`, `registry_unavailable`). */
  readonly code: FaultCode;
  /** True when delivering the same message again later may succeed: the code's, per the catalogue. */
  readonly retriable: boolean;

  constructor(code: FaultCode, message: string, options: FaultOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'Fault';
    this.code = code;
    this.retriable = FAULT_CODES[code].retriable;
  }
}

/** True for a fault that says "try again later". */
export function isRetriable(error: unknown): boolean {
  return error instanceof Fault && error.retriable;
}

/** The code a fault is counted under: its own, or `internal_error` for anything else thrown. */
export function faultCode(error: unknown): FaultCode {
  return error instanceof Fault ? error.code : 'internal_error';
}

/** `Name: message` of an error (no stack), or the thrown value as text: for logs and audit detail. */
export function errorText(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
