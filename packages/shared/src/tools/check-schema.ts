/**
 * The schema rung: is it a known tool with exactly the declared arguments of the declared types?
 */
import type { ErrorObject } from 'ajv/dist/2020.js';
import { accept, rejecterFor, type Decision } from '../decision.js';
import type { ParsedCall } from '../types.js';
import { argumentProblems, type ArgumentProblem } from './argument-problems.js';
import type { Tool, ToolRegistry } from './create-tool-registry.js';

/** A call that passed the schema rung. */
export interface CheckedCall {
  readonly callId: string;
  readonly tool: Tool;
  readonly args: Readonly<Record<string, unknown>>;
  /** Set when the representation rung removed a known Markdown fence. */
  readonly repaired?: 'fence';
}

/** How many problems the public message spells out; the rest are counted. */
const PROBLEMS_SHOWN = 5;

const reject = rejecterFor('schema');

/**
 * Checks a parsed call against its tool's compiled input schema. Refuses with `unknown_tool`,
 * or with the code of the most decisive argument problem (`unexpected_field`, then
 * `missing_field`, `wrong_type`, `invalid_value`); the public message lists every problem (up to
 * five) by argument name and never echoes a value the model sent, which could carry another
 * tenant's identifier. Unknown arguments are refused, never dropped.
 */
export function checkSchema(
  call: ParsedCall,
  registry: ToolRegistry,
): Decision<CheckedCall, 'schema'> {
  const tool = registry.get(call.tool);
  if (tool === undefined) {
    return reject('unknown_tool', undefined, `no tool named ${clipJson(call.tool)}`);
  }
  const errors = tool.inputErrors(call.args);
  const [first, ...rest] = argumentProblems(errors, tool.name);
  if (first === undefined) return accept(checkedCall(call, tool));
  return reject(first.code, publicMessage([first, ...rest]), internalDetail(tool, errors));
}

function checkedCall(call: ParsedCall, tool: Tool): CheckedCall {
  const base = { callId: call.callId, tool, args: call.args };
  return call.repaired === undefined ? base : { ...base, repaired: call.repaired };
}

function publicMessage(problems: readonly ArgumentProblem[]): string {
  const shown = problems.slice(0, PROBLEMS_SHOWN).map((p) => p.text);
  const more = problems.length - shown.length;
  return [...shown, ...(more > 0 ? [`(${more} more problem${more === 1 ? '' : 's'}.)`] : [])].join(
    ' ',
  );
}

/** For the audit topic: where and which keyword, with argument names but no values. */
function internalDetail(tool: Tool, errors: readonly ErrorObject[]): string {
  const where = errors.map((e) => {
    const params = e.params as Record<string, unknown>;
    const name = params.additionalProperty ?? params.unevaluatedProperty ?? params.missingProperty;
    return `${e.keyword} at ${clipJson(e.instancePath)}${name === undefined ? '' : ` (${clipJson(name)})`} by ${e.schemaPath}`;
  });
  return `tool ${tool.name}@${tool.spec.version}: ${where.join('; ')}`;
}

function clipJson(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 120 ? `${text.slice(0, 119)}…` : text;
}
