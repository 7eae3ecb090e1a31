/**
 * Is a decoded record a Command this worker may run? It must match the `commands` schema
 * (DESIGN §2) and name the tool of the topic it came from. When it does not, the ids it carries
 * (if any) still let the worker answer with an error result, so the gate does not wait for the
 * deadline to learn nothing will happen.
 */
import { createValidator, MESSAGE_SCHEMAS, type Command } from '@toolgate/shared';

/** One problem ajv reports (typed from the validator, so this package needs no ajv of its own). */
type ErrorObject = NonNullable<ReturnType<typeof createValidator>['errors']>[number];

/** The ids a ToolResult needs to reach the execute stage. */
export interface ResultIds {
  readonly commandId: string;
  readonly idempotencyKey: string;
  readonly runId: string;
}

/** A command to run, or why not (with the ids to answer, when the record has them). */
export type CommandCheck =
  | { readonly ok: true; readonly command: Command }
  | {
      readonly ok: false;
      readonly ids: ResultIds | undefined;
      /** Paths and keywords only, never values: safe to log. */
      readonly problems: readonly string[];
    };

/** Checks `value` read from the command topic of `topicTool`. */
export type CommandChecker = (value: unknown, topicTool: string) => CommandCheck;

/** Compiles the `commands` schema once (about 50 ms) and returns a checker. */
export function createCommandChecker(): CommandChecker {
  const validate = createValidator().compile(MESSAGE_SCHEMAS.commands);
  return (value, topicTool) => {
    const problems = validate(value) ? [] : (validate.errors ?? []).map(describe);
    if (problems.length === 0) {
      const command = value as Command;
      if (command.tool === topicTool) return { ok: true, command };
      problems.push(`/tool: names another tool than the topic's (${topicTool})`);
    }
    return { ok: false, ids: resultIdsOf(value), problems };
  };
}

/** The ids of a record that may not be a valid command, or undefined when one is missing. */
export function resultIdsOf(value: unknown): ResultIds | undefined {
  if (!isRecord(value)) return undefined;
  const { commandId, idempotencyKey, context } = value;
  const runId = isRecord(context) ? context['runId'] : undefined;
  return isText(commandId) && isText(idempotencyKey) && isText(runId)
    ? { commandId, idempotencyKey, runId }
    : undefined;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isText(v: unknown): v is string {
  return typeof v === 'string' && v.length > 0;
}

function describe(e: ErrorObject): string {
  const where = e.instancePath === '' ? '/' : e.instancePath;
  const params = e.params as { missingProperty?: unknown; additionalProperty?: unknown };
  const which = params.missingProperty ?? params.additionalProperty;
  return `${where}: ${e.keyword}${typeof which === 'string' ? ` ${which}` : ''}`;
}
