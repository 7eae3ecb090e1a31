/**
 * The error codes a tool worker itself answers with (as opposed to a handler's own codes, such as
 * `stale_object`), each with the short message the ToolResult carries. They are codes of a
 * ToolResult's `error`, not rejection codes of the gate: the execute stage turns an error result
 * into its own `execution` refusal, except `outcome_unknown`, which it ends as unknown.
 */
import { TOOL_OUTCOME_UNKNOWN } from '@toolgate/shared';

/** Worker error codes and their messages. */
export const WORKER_ERRORS = {
  /**
   * Not done: the deadline had passed when the command was first read, or the handler stopped at
   * the deadline's signal (handlers check it right before their side effect).
   */
  deadline_exceeded: 'The command was not completed before its deadline.',
  /**
   * Past the deadline, and nobody can say whether the change was made: an earlier delivery of the
   * command ran the handler and recorded nothing (a crash, a retriable fault), or the handler
   * ignored the signal and was abandoned, or it faulted after the signal fired.
   */
  [TOOL_OUTCOME_UNKNOWN]: 'The command may or may not have taken effect before its deadline.',
  /** The handler threw something other than a retriable fault: a bug in the tool. */
  handler_error: 'The tool failed while running the command.',
  /** The command broke the commands schema, or named another tool than its topic's. */
  invalid_command: 'The command is malformed, so the tool did not run it.',
  /** The handler answered something that is not an outcome, or output too large or not JSON. */
  invalid_output: 'The tool produced an answer that cannot be reported.',
  /** The key is recorded for a command with other content (tool, arguments, objects, tenant). */
  idempotency_conflict: 'This idempotency key was already used for a different command.',
  /** Another command with the same key is running and has no result yet. */
  in_flight: 'Another command with this idempotency key is still running.',
  /** The worker failed on this command in a way retrying cannot fix (a bug); see its log. */
  internal_error: 'The tool worker could not process the command.',
} as const;

/** One worker error code. */
export type WorkerErrorCode = keyof typeof WORKER_ERRORS;
