/**
 * Loads the deployment's tool definitions once at start-up: checks them, compiles their schemas
 * and refuses to start with any problem, naming every problem of every tool at once.
 */
import type { Ajv2020, ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import { RESERVED_ACTIONS } from '../authz/cedar-entities.js';
import { DEFAULT_CEILINGS, type Ceilings } from '../limits/ceilings.js';
import type { JsonSchema, ToolSpec } from '../tool-spec.js';
import { MAX_CONFIRMATION_RULE_CHARS } from './confirmation-rule.js';
import { createValidator } from './create-validator.js';
import { findSchemaProblems } from './find-schema-problems.js';
import { FORBIDDEN_PROPERTY_NAMES } from './identity-fields.js';
import { isSideEffect, SIDE_EFFECT_CLASSES, SIDE_EFFECT_DEFAULTS } from './side-effect-defaults.js';
import { ToolDefinitionError } from './tool-definition-error.js';

/**
 * How long a tool may take when neither its spec nor the deployment says, in milliseconds: the
 * default `toolTimeoutMs` ceiling (10 s).
 */
export const DEFAULT_TIMEOUT_MS = DEFAULT_CEILINGS.toolTimeoutMs;

/**
 * Output ceiling when neither a tool's spec nor the deployment says, in bytes: the default
 * `resultBytes` ceiling (64 KiB).
 */
export const DEFAULT_RESULT_MAX_BYTES = DEFAULT_CEILINGS.resultBytes;

/** The deployment's ceilings that bound each tool (DESIGN §7): execution time and result bytes. */
export type ToolCeilings = Pick<Ceilings, 'toolTimeoutMs' | 'resultBytes'>;

/** Tool names as models call them (the OpenAI and Anthropic limit, and safe in Kafka topic names). */
export const TOOL_NAME_PATTERN = /^[a-zA-Z][a-zA-Z0-9_-]{0,63}$/;

const CALLBACKS = [
  'semantics',
  'references',
  'preconditions',
  'requiresConfirmation',
  'card',
] as const;

/**
 * A tool spec of any argument type, as a registry holds them: each spec's own argument type
 * ends at `defineTool`, and the schema rung is what makes the arguments fit it.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- see above; `unknown` would reject every typed spec.
export type AnyToolSpec = ToolSpec<any>;

/** A loaded, compiled tool. Frozen; its schemas are frozen copies of the definition's. */
export interface Tool {
  readonly spec: AnyToolSpec;
  readonly name: string;
  /**
   * How long the tool may take, in milliseconds: its spec's `timeoutMs`, else the deployment's
   * `toolTimeoutMs` ceiling (default {@link DEFAULT_TIMEOUT_MS}); never above that ceiling.
   */
  readonly timeoutMs: number;
  /**
   * Output ceiling in bytes: its spec's `result.maxBytes`, else the deployment's `resultBytes`
   * ceiling (default {@link DEFAULT_RESULT_MAX_BYTES}); never above that ceiling.
   */
  readonly resultMaxBytes: number;
  /** Compiled once; undefined when no output schema is declared. */
  readonly validateOutput?: (output: unknown) => boolean;
  /**
   * The input schema's complaints about `args`, empty when they are valid. Error objects carry
   * locations and schema parameters, never the offending value.
   */
  readonly inputErrors: (args: unknown) => readonly ErrorObject[];
}

/** The loaded tools, by name. */
export interface ToolRegistry {
  /** Own-property lookup only: `constructor` or `__proto__` is not a tool. */
  get(name: string): Tool | undefined;
  /** Every tool, in definition order. */
  list(): readonly Tool[];
}

/**
 * Checks and compiles every tool once with {@link createValidator}, under the deployment's
 * `ceilings` (already validated by `resolveCeilings`; default {@link DEFAULT_CEILINGS}): a tool
 * that sets no `timeoutMs` or `result.maxBytes` gets the `toolTimeoutMs` or `resultBytes`
 * ceiling. Refuses at load: bad, duplicate or reserved names (JavaScript's, and the policy model's
 * action groups and `approve`); missing description or version; an unknown
 * side-effect class; a tool's own timeout or output ceiling that is not a positive whole number or
 * is above the deployment's ceiling (a ceiling caps every tool; raise it in the deployment to let a
 * tool take more); an input schema that is not `type: "object"`, leaves any object open or any array's items
 * undescribed, declares an identity field or a reserved name, reaches outside itself, points a
 * `$ref` at a value that is not a subschema, or does not compile in strict mode; an output schema that does not compile; a confirmation that can be
 * needed (destructive, or `requiresConfirmation` given) without a `card` builder.
 *
 * @throws ToolDefinitionError listing every problem of every tool, when there is any.
 */
export function createToolRegistry(
  specs: readonly AnyToolSpec[],
  ceilings: ToolCeilings = DEFAULT_CEILINGS,
): ToolRegistry {
  const ajv = createValidator();
  const problems: string[] = [];
  const tools = new Map<string, Tool>();
  const seen = new Set<string>();
  specs.forEach((spec, index) => {
    if (typeof spec !== 'object' || spec === null) {
      problems.push(`tool #${index}: not a tool definition`);
      return;
    }
    const own = specProblems(spec, ceilings);
    if (typeof spec.name === 'string' && seen.has(spec.name))
      own.push('the name is used by another tool');
    seen.add(spec.name);
    // Compiled even when other problems were found, so that compile problems are reported too.
    const tool = loadTool(ajv, spec, ceilings, own);
    problems.push(...own.map((p) => `${labelOf(spec, index)}: ${p}`));
    if (tool !== undefined && own.length === 0) tools.set(tool.name, tool);
  });
  if (problems.length > 0) throw new ToolDefinitionError(problems);
  const list = Object.freeze([...tools.values()]);
  return Object.freeze({ get: (name: string) => tools.get(name), list: () => list });
}

function labelOf(spec: ToolSpec<unknown>, index: number): string {
  return typeof spec.name === 'string' && spec.name !== '' ? spec.name : `tool #${index}`;
}

/** Problems of the definition's plain fields (everything but schema compilation). */
function specProblems(spec: ToolSpec<unknown>, ceilings: ToolCeilings): string[] {
  const problems = [...nameProblems(spec.name)];
  if (typeof spec.description !== 'string' || spec.description.trim() === '') {
    problems.push('a description is required (models choose tools by it)');
  }
  if (typeof spec.version !== 'string' || spec.version.trim() === '')
    problems.push('a version is required');
  if (!isSideEffect(spec.sideEffect)) {
    problems.push(`sideEffect must be one of ${SIDE_EFFECT_CLASSES.join(', ')}`);
  }
  problems.push(...ceilingProblems(spec, ceilings), ...callbackProblems(spec));
  problems.push(...ruleProblems(spec.confirmationRule));
  problems.push(...findSchemaProblems(spec.input).map((p) => `input schema ${p}`));
  return problems;
}

function ruleProblems(rule: unknown): string[] {
  if (rule === undefined) return [];
  return typeof rule === 'string' &&
    rule.trim() !== '' &&
    rule.length <= MAX_CONFIRMATION_RULE_CHARS
    ? []
    : [`confirmationRule must be text of 1 to ${MAX_CONFIRMATION_RULE_CHARS} characters`];
}

function nameProblems(name: unknown): string[] {
  if (typeof name !== 'string' || !TOOL_NAME_PATTERN.test(name)) {
    return [`the name must match ${String(TOOL_NAME_PATTERN)}`];
  }
  if (FORBIDDEN_PROPERTY_NAMES.has(name)) return [`"${name}" is a reserved name`];
  // A tool is the Cedar action of its own name: these names would be the groups or the approval.
  return (RESERVED_ACTIONS as readonly string[]).includes(name)
    ? [`"${name}" names an action group or the approval in the policies; choose another name`]
    : [];
}

/** A tool's own timeout and output ceiling: positive whole numbers, within the deployment's. */
function ceilingProblems(spec: ToolSpec<unknown>, ceilings: ToolCeilings): string[] {
  return [
    ...ceilingProblem('timeoutMs', spec.timeoutMs, 'milliseconds', [
      'toolTimeoutMs',
      ceilings.toolTimeoutMs,
    ]),
    ...ceilingProblem('result.maxBytes', spec.result?.maxBytes, 'bytes', [
      'resultBytes',
      ceilings.resultBytes,
    ]),
  ];
}

function ceilingProblem(
  field: string,
  value: unknown,
  unit: string,
  [ceiling, max]: readonly [name: keyof ToolCeilings, max: number],
): string[] {
  if (value === undefined) return [];
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0) {
    return [`${field} must be a positive whole number of ${unit}`];
  }
  // A ceiling caps every tool: refused at start rather than clamped, so that nothing runs with a
  // value other than the one its definition states.
  return value > max
    ? [`${field} ${String(value)} is above the deployment's ${ceiling} ceiling of ${String(max)}`]
    : [];
}

function callbackProblems(spec: ToolSpec<unknown>): string[] {
  const problems = CALLBACKS.filter(
    (key) => spec[key] !== undefined && typeof spec[key] !== 'function',
  ).map((key) => `${key} must be a function`);
  const alwaysConfirmed =
    isSideEffect(spec.sideEffect) &&
    SIDE_EFFECT_DEFAULTS[spec.sideEffect].confirmation === 'always';
  const mayConfirm = alwaysConfirmed || spec.requiresConfirmation !== undefined;
  if (mayConfirm && spec.card === undefined) {
    problems.push(
      'a confirmation can be needed, so a card builder is required to show the approver',
    );
  }
  return problems;
}

/**
 * Compiles the tool's schemas (frozen copies, so nothing can change what was compiled) and
 * returns the tool; compile failures are appended to `problems`.
 */
function loadTool(
  ajv: Ajv2020,
  spec: AnyToolSpec,
  ceilings: ToolCeilings,
  problems: string[],
): Tool | undefined {
  const input = compileSchema(ajv, spec.input, 'input schema', problems);
  const outputSchema = spec.result?.outputSchema;
  const output =
    outputSchema === undefined
      ? undefined
      : compileSchema(ajv, outputSchema, 'output schema', problems);
  if (input === undefined || (outputSchema !== undefined && output === undefined)) return undefined;
  const validate = input.validate;
  return Object.freeze({
    spec: frozenSpec(spec, input.schema, output?.schema),
    name: spec.name,
    timeoutMs: spec.timeoutMs ?? ceilings.toolTimeoutMs,
    resultMaxBytes: spec.result?.maxBytes ?? ceilings.resultBytes,
    inputErrors: (args: unknown) => (validate(args) ? [] : (validate.errors ?? [])),
    ...(output && { validateOutput: (value: unknown) => output.validate(value) }),
  });
}

/** The spec with its schemas replaced by the frozen copies that were compiled. */
function frozenSpec(spec: AnyToolSpec, input: JsonSchema, outputSchema?: JsonSchema): AnyToolSpec {
  const result =
    spec.result && Object.freeze({ ...spec.result, ...(outputSchema && { outputSchema }) });
  return Object.freeze({ ...spec, input, ...(result && { result }) });
}

interface Compiled {
  readonly schema: JsonSchema;
  readonly validate: ValidateFunction;
}

function compileSchema(
  ajv: Ajv2020,
  schema: unknown,
  what: string,
  problems: string[],
): Compiled | undefined {
  try {
    const frozen = deepFreeze(structuredClone(schema)) as JsonSchema;
    return { schema: frozen, validate: ajv.compile(frozen) };
  } catch (error) {
    problems.push(
      `${what} does not compile: ${error instanceof Error ? error.message : String(error)}`,
    );
    return undefined;
  }
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
