/**
 * What a tool owner writes: one handler per tool, from a Command to an outcome. Errors are values
 * (`toolError`), as refusals are in the gate; a thrown error is a bug and is reported as
 * `handler_error`, except a retriable Fault, which means "deliver this command again later".
 */
import type { Command } from '@toolgate/shared';

/** What a handler answers: the tool's output, or an error with a code and a short message. */
export type ToolOutcome =
  | { readonly status: 'ok'; readonly output?: unknown }
  | {
      readonly status: 'error';
      readonly error: { readonly code: string; readonly message: string };
    };

/** What a handler is given besides the command. */
export interface ToolContext {
  /**
   * Aborted when the command's deadline passes (reason `DeadlineExceeded`), or when another
   * delivery of the command took it over while this worker was paused past its lease (reason
   * `LeaseLost`, docs/decisions/0010). A handler checks it before each side effect and stops: past
   * the deadline the gate has already told the agent the outcome is unknown, and after a takeover
   * the other delivery is running the same command.
   */
  readonly signal: AbortSignal;
  /** The command's deadline. */
  readonly deadline: Date;
  /**
   * 1 on the delivery that claimed the command's key; more when an earlier delivery of the same
   * command claimed it and recorded no result (a crash, a lost Redis reply). Its side effect may
   * have happened: a handler applies every change with compare-and-set on the object versions of
   * the command, and recognises its own earlier write, so running again changes nothing twice.
   */
  readonly attempt: number;
  /** The worker's clock. */
  now(): Date;
}

/** Runs one command of one tool. */
export type ToolHandler = (command: Command, context: ToolContext) => Promise<ToolOutcome>;

/** Handlers by tool name. */
export type ToolHandlers = Readonly<Record<string, ToolHandler>>;

/** An `ok` outcome with `output` (any JSON value; omitted when undefined). */
export function toolOk(output?: unknown): ToolOutcome {
  return output === undefined ? { status: 'ok' } : { status: 'ok', output };
}

/**
 * An `error` outcome. `code` is 1–64 characters of `[A-Za-z0-9_.-]` (e.g. `stale_object`);
 * `message` is one short sentence for the agent: no stack, no internal names.
 */
export function toolError(code: string, message: string): ToolOutcome {
  return { status: 'error', error: { code, message } };
}
