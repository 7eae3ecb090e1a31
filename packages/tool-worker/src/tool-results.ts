/**
 * ToolResults (DESIGN §2) from handler outcomes and worker errors, and the check that what a
 * handler answered can be reported at all: an outcome of the right shape, an output that is JSON
 * within the ceilings the codec enforces, an error code of a safe form and a short message.
 */
import { parseJsonBounded, type ToolResult } from '@toolgate/shared';
import type { ResultIds } from './check-command.js';
import { toolError, toolOk, type ToolOutcome } from './tool-handler.js';
import { WORKER_ERRORS, type WorkerErrorCode } from './worker-errors.js';

/** Most characters of an error message in a ToolResult; longer ones are cut. */
export const MAX_ERROR_MESSAGE_CHARS = 300;

/** Default ceiling on a result's output, in bytes of JSON (UTF-8): 256 KiB. */
export const DEFAULT_MAX_OUTPUT_BYTES = 256 * 1024;

/** Deepest nesting of an output: the whole message may nest 64 deep in the codec. */
export const MAX_OUTPUT_DEPTH = 60;

/** Error codes handlers may use: 1–64 characters of `[A-Za-z0-9_.-]`. */
export const ERROR_CODE_PATTERN = /^[A-Za-z0-9_.-]{1,64}$/;

/** A handler's answer made reportable, and what was wrong with it when it was not. */
export interface CheckedOutcome {
  readonly outcome: ToolOutcome;
  /** Why the answer became `invalid_output`; for the log, never for the result. */
  readonly problem?: string;
}

/** The ToolResult reporting `outcome` for the command with `ids`. */
export function resultFor(ids: ResultIds, outcome: ToolOutcome, completedAt: Date): ToolResult {
  const base = { ...ids, completedAt: completedAt.toISOString() };
  if (outcome.status === 'error') return { ...base, status: 'error', error: outcome.error };
  return outcome.output === undefined
    ? { ...base, status: 'ok' }
    : { ...base, status: 'ok', output: outcome.output };
}

/** The worker's own error `code` as an outcome, with its fixed message. */
export function workerError(code: WorkerErrorCode): ToolOutcome {
  return toolError(code, WORKER_ERRORS[code]);
}

/**
 * A recorded result re-addressed to another command with the same key and content: the outcome
 * (status, output, error, completedAt) is the key's, the ids are the asking command's, so the
 * execute stage can match it to its pending command.
 */
export function readdressed(recorded: ToolResult, ids: ResultIds): ToolResult {
  return { ...recorded, ...ids };
}

/**
 * Checks what a handler answered. An `ok` output is normalised to plain JSON (what
 * `JSON.stringify` keeps) and must read back with the gate's bounded parser within
 * `maxOutputBytes` and {@link MAX_OUTPUT_DEPTH}; an error's message is cut to its first line and
 * {@link MAX_ERROR_MESSAGE_CHARS}. Anything else becomes `invalid_output`.
 */
export function checkOutcome(answer: unknown, maxOutputBytes: number): CheckedOutcome {
  if (!isRecord(answer)) return invalid(`the handler answered a ${kindOf(answer)}`);
  if (answer['status'] === 'ok') return checkOutput(answer['output'], maxOutputBytes);
  if (answer['status'] !== 'error') return invalid('the answer has no status ok or error');
  const error = answer['error'];
  if (!isRecord(error) || typeof error['code'] !== 'string') {
    return invalid('an error answer without error.code');
  }
  if (!ERROR_CODE_PATTERN.test(error['code'])) return invalid('error.code is not a safe code');
  const message = typeof error['message'] === 'string' ? error['message'] : '';
  return { outcome: toolError(error['code'], shortMessage(message)) };
}

/** The first line of `text`, trimmed and cut to {@link MAX_ERROR_MESSAGE_CHARS}. */
export function shortMessage(text: string): string {
  const line = (text.split(/\r?\n/, 1)[0] ?? '').trim();
  if (line === '') return 'The tool reported an error.';
  if (line.length <= MAX_ERROR_MESSAGE_CHARS) return line;
  return `${line.slice(0, MAX_ERROR_MESSAGE_CHARS - 1)}…`;
}

function checkOutput(output: unknown, maxBytes: number): CheckedOutcome {
  if (output === undefined) return { outcome: toolOk() };
  let text: string | undefined;
  try {
    text = JSON.stringify(output);
  } catch (error) {
    return invalid(`the output is not JSON: ${error instanceof Error ? error.name : 'error'}`);
  }
  if (text === undefined) return invalid(`the output is a ${typeof output}, not JSON`);
  const read = parseJsonBounded(text, { maxBytes, maxDepth: MAX_OUTPUT_DEPTH });
  if (!read.ok) return invalid(`the output cannot be reported: ${read.code}`);
  return { outcome: toolOk(read.value) };
}

function invalid(problem: string): CheckedOutcome {
  return { outcome: workerError('invalid_output'), problem };
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function kindOf(v: unknown): string {
  if (v === null) return 'null';
  return Array.isArray(v) ? 'array' : typeof v;
}
