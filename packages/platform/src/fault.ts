/**
 * Faults are exceptions with a code and a retriable flag (kafkajs's most useful idea): "could not
 * answer", as opposed to a refusal, which is a value. The one stage loop applies one policy:
 * retriable → pause and deliver again; not retriable → an internal_error audit event and a
 * terminal observation, then move on.
 */

/** A failure to answer, not a refusal. */
export class Fault extends Error {
  /** A stable, documented code (e.g. `redis_unavailable`, `registry_unavailable`). */
  readonly code: string;
  /** True when delivering the same message again later may succeed. */
  readonly retriable: boolean;

  constructor(
    code: string,
    message: string,
    options: { readonly retriable: boolean; readonly cause?: unknown },
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'Fault';
    this.code = code;
    this.retriable = options.retriable;
  }
}

/** True for a fault that says "try again later". */
export function isRetriable(error: unknown): boolean {
  return error instanceof Fault && error.retriable;
}

/** The code a fault is counted under: its own, or `internal_error` for anything else thrown. */
export function faultCode(error: unknown): string {
  return error instanceof Fault ? error.code : 'internal_error';
}

/** `Name: message` of an error (no stack), or the thrown value as text: for logs and audit detail. */
export function errorText(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
