/**
 * Outside suite 2, the converter: Berkeley Function Calling Leaderboard definitions become strict
 * tool definitions, their ground-truth answers become calls, and each accepted call yields four
 * mutations that the schema rung must refuse. Pure functions over the parsed JSON Lines; the test
 * reads the files. Test support only: nothing here is production code.
 */
import type { JsonSchema, ToolSpec } from '../tool-spec.js';
import { checkSchema } from './check-schema.js';
import { createToolRegistry, type Tool, type ToolRegistry } from './create-tool-registry.js';
import { findSchemaProblems } from './find-schema-problems.js';
import { ToolDefinitionError } from './tool-definition-error.js';

/** The categories with ground truth whose values are JSON: Python, live, multiple, parallel. */
export const BFCL_CATEGORIES = [
  'simple_python',
  'multiple',
  'parallel',
  'parallel_multiple',
  'live_simple',
  'live_parallel',
  'live_parallel_multiple',
] as const;

/** Categories left out, and why: known exceptions, not bent into the gate. */
export const BFCL_EXCEPTIONS: Readonly<Record<string, string>> = {
  simple_java:
    'ground truth holds Java code identifiers and expressions (`mapController`, `new HashMap<>()`), not JSON values',
  simple_javascript: 'ground truth holds JavaScript identifiers and expressions, not JSON values',
  irrelevance: 'no ground truth (the right answer is no call)',
  live_relevance: 'no ground truth (any relevant call is right)',
};

type Node = Readonly<Record<string, unknown>>;

/** One BFCL function definition. */
export interface BfclFunction {
  readonly name: string;
  readonly description: string;
  readonly parameters: Node;
}

/** One BFCL test entry: the functions the model was offered. */
export interface BfclEntry {
  readonly id: string;
  readonly function: readonly BfclFunction[];
}

/** One ground-truth line: the acceptable calls, each parameter with its acceptable values. */
export interface BfclAnswer {
  readonly id: string;
  readonly ground_truth: readonly Readonly<Record<string, Readonly<Record<string, unknown>>>>[];
}

/** BFCL's types in JSON Schema (BFCL's own mapping, except `any`, which really is anything). */
const TYPES: Readonly<Record<string, string | undefined>> = {
  dict: 'object',
  float: 'number',
  integer: 'integer',
  string: 'string',
  boolean: 'boolean',
  array: 'array',
  tuple: 'array',
  any: undefined,
};

/** Parses JSON Lines (BFCL's `.json` files hold one object per line). */
export function parseJsonLines<T>(text: string): T[] {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as T);
}

/** BFCL names like `math.factorial` as tool names: dots become underscores, as BFCL does for OpenAI. */
export function toolNameOf(name: string): string {
  return name.replace(/\./g, '_');
}

/**
 * Converts one BFCL parameter schema: types mapped, objects with properties closed, `optional`
 * (BFCL's own keyword, on a property or as a list on the object) turned into absence from
 * `required`. Everything else is kept as written, so definitions the gate refuses stay refused:
 * a `dict` without properties stays an open object, `any` stays an unconstrained value, a type
 * BFCL does not document stays unknown.
 */
export function convertSchema(node: Node): JsonSchema {
  const { type, optional: _optional, properties, items, required, ...rest } = node;
  const mapped = typeof type === 'string' && type in TYPES ? TYPES[type] : type;
  const out: Record<string, unknown> = {
    ...(mapped === undefined ? {} : { type: mapped }),
    ...rest,
  };
  if (items !== undefined) out.items = convertSchema(items as Node);
  if (properties !== undefined)
    Object.assign(out, convertObject(node, properties as Record<string, Node>));
  else if (required !== undefined) out.required = required;
  return out;
}

function convertObject(
  node: Node,
  properties: Readonly<Record<string, Node>>,
): Record<string, unknown> {
  const listed = Array.isArray(node.optional) ? (node.optional as string[]) : [];
  const optional = new Set([
    ...listed,
    ...Object.keys(properties).filter((k) => isOptional(properties[k]!)),
  ]);
  const required = ((node.required ?? []) as string[]).filter((name) => !optional.has(name));
  return {
    properties: Object.fromEntries(
      Object.entries(properties).map(([k, v]) => [k, convertSchema(v)]),
    ),
    ...(required.length > 0 && { required }),
    additionalProperties: false,
  };
}

function isOptional(property: Node): boolean {
  return property.optional === true || String(property.optional).toLowerCase() === 'true';
}

/** Does the definition use BFCL's non-standard `optional` keyword anywhere? */
export function usesOptional(node: unknown): boolean {
  if (typeof node !== 'object' || node === null) return false;
  return 'optional' in node || Object.values(node).some(usesOptional);
}

/** A BFCL function as a tool definition (read-only: BFCL says nothing about side effects). */
export function convertFunction(fn: BfclFunction): ToolSpec {
  return {
    name: toolNameOf(fn.name),
    description: fn.description,
    version: 'bfcl-v4',
    sideEffect: 'read',
    input: convertSchema(fn.parameters),
  };
}

/**
 * The call a ground-truth answer describes, taking the first acceptable value of each parameter.
 * BFCL writes `""` for "may be left out": an optional parameter whose first value is `""` is left
 * out, and a required one takes its first other value (a required parameter with no other value
 * is left out, and the schema rung says it is missing). Nested objects list acceptable values per
 * field, like the top level.
 */
export function pickArguments(
  answer: Readonly<Record<string, unknown>>,
  schema: JsonSchema,
): Record<string, unknown> {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = (schema.required ?? []) as string[];
  const args: Record<string, unknown> = {};
  for (const [name, candidates] of Object.entries(answer)) {
    const list: unknown[] = Array.isArray(candidates) ? candidates : [candidates];
    // "" (leave it out) is not an acceptable value for a required parameter: take the next one.
    const acceptable = required.includes(name) ? list.filter((v) => v !== '') : list;
    if (acceptable.length === 0 || acceptable[0] === '') continue;
    args[name] = nested(acceptable[0], properties[name]);
  }
  return args;
}

function nested(value: unknown, schema: JsonSchema | undefined): unknown {
  if (schema === undefined) return value;
  if (Array.isArray(value) && schema.type === 'array' && schema.items !== undefined) {
    return value.map((v) => nested(v, schema.items as JsonSchema));
  }
  const isPlainObject = typeof value === 'object' && value !== null && !Array.isArray(value);
  if (isPlainObject && schema.type === 'object' && schema.properties !== undefined) {
    return pickArguments(value as Record<string, unknown>, schema);
  }
  return value;
}

/** The four refusals every accepted call must turn into, when the tool allows them. */
export const MUTATIONS = {
  missing: 'missing_field',
  extra: 'unexpected_field',
  mistyped: 'wrong_type',
  unknownTool: 'unknown_tool',
} as const;

/** One kind of mutation. */
export type MutationKind = keyof typeof MUTATIONS;

/** A mutated call and the code it must be refused with. */
export interface Mutation {
  readonly kind: MutationKind;
  readonly tool: string;
  readonly args: Readonly<Record<string, unknown>>;
}

/** A value of another JSON type than `type`. */
const MISTYPED: Readonly<Record<string, unknown>> = {
  string: 12345,
  number: 'twelve',
  integer: 'twelve',
  boolean: 'yes',
  array: 'a, b',
  object: 'key=value',
};

/** The mutations of an accepted call that its tool allows (a tool with no required argument has no "missing"). */
export function mutationsOf(
  tool: Tool,
  args: Readonly<Record<string, unknown>>,
  registry: ToolRegistry,
): Mutation[] {
  const input = tool.spec.input;
  const properties = (input.properties ?? {}) as Record<string, JsonSchema>;
  const mutations: Mutation[] = [];
  const [firstRequired] = (input.required ?? []) as string[];
  if (firstRequired !== undefined) {
    const { [firstRequired]: _dropped, ...rest } = args;
    mutations.push({ kind: 'missing', tool: tool.name, args: rest });
  }
  if (!('bfcl_extra_argument' in properties)) {
    mutations.push({ kind: 'extra', tool: tool.name, args: { ...args, bfcl_extra_argument: 1 } });
  }
  const typed = Object.keys(args).find((k) => typeof properties[k]?.type === 'string');
  if (typed !== undefined) {
    const wrong = MISTYPED[properties[typed]!.type as string];
    mutations.push({ kind: 'mistyped', tool: tool.name, args: { ...args, [typed]: wrong } });
  }
  const unknown = `${tool.name}_v2`;
  if (registry.get(unknown) === undefined)
    mutations.push({ kind: 'unknownTool', tool: unknown, args });
  return mutations;
}

/** One definition the registry refused, with its problems. */
export interface RefusedDefinition {
  readonly id: string;
  readonly name: string;
  readonly problems: readonly string[];
}

/** One ground-truth call the schema rung refused although its definition loaded. */
export interface DataError {
  readonly id: string;
  readonly name: string;
  readonly code: string;
  readonly message: string;
}

/** What the BFCL run found. */
export interface BfclReport {
  /** Function definitions converted (every occurrence in every entry). */
  readonly converted: number;
  /** Distinct definitions (same name and same converted schema counted once). */
  readonly distinct: number;
  readonly loaded: number;
  readonly refused: readonly RefusedDefinition[];
  /** BFCL names whose dots were mapped, distinct. */
  readonly renamed: readonly string[];
  /** Definitions that used BFCL's `optional` keyword. */
  readonly optionalKeyword: number;
  /** Entries in which two BFCL names map to one tool name (`a.b` and `a_b`). */
  readonly collisions: readonly string[];
  /** Ground-truth calls whose definition loaded, and how many of them the schema rung accepted. */
  readonly calls: number;
  readonly accepted: number;
  /** Ground-truth calls not checked because their definition was refused (or is missing). */
  readonly skipped: number;
  readonly dataErrors: readonly DataError[];
  readonly mutations: Readonly<
    Record<MutationKind, { generated: number; refusedAsExpected: number }>
  >;
  /** Mutations that were accepted or refused at another stage or with another code. */
  readonly mutationFailures: readonly string[];
}

/** One category's parsed files. */
export interface BfclCategory {
  readonly entries: readonly BfclEntry[];
  readonly answers: readonly BfclAnswer[];
}

interface Definition {
  readonly id: string;
  readonly original: string;
  readonly parameters: Node;
  readonly spec: ToolSpec;
  readonly key: string;
}

/**
 * Converts every definition, loads them through `createToolRegistry` (several registries, since
 * different BFCL entries define different functions under one name), checks every ground-truth
 * call with `checkSchema`, and every accepted call's mutations.
 */
export function evaluateBfcl(categories: readonly BfclCategory[]): BfclReport {
  const definitions = categories.flatMap((c) => c.entries.flatMap(definitionsOf));
  const distinct = new Map(definitions.map((d) => [d.key, d]));
  const { registries, refused } = loadAll([...distinct.values()]);
  const calls = categories.flatMap((c) => callsOf(c, definitions));
  return {
    converted: definitions.length,
    distinct: distinct.size,
    loaded: registries.size,
    refused,
    renamed: [
      ...new Set(definitions.filter((d) => d.original.includes('.')).map((d) => d.original)),
    ],
    optionalKeyword: definitions.filter((d) => usesOptional(d.parameters)).length,
    collisions: collisionsOf(categories),
    ...checkCalls(calls, registries),
  };
}

function collisionsOf(categories: readonly BfclCategory[]): string[] {
  return categories.flatMap((c) =>
    c.entries
      .filter((e) => {
        const originals = new Set(e.function.map((f) => f.name));
        return new Set([...originals].map(toolNameOf)).size < originals.size;
      })
      .map((e) => e.id),
  );
}

function definitionsOf(entry: BfclEntry): Definition[] {
  return entry.function.map((fn) => {
    const spec = convertFunction(fn);
    return {
      id: entry.id,
      original: fn.name,
      parameters: fn.parameters,
      spec,
      key: `${spec.name} ${JSON.stringify(spec.input)}`,
    };
  });
}

/**
 * Loads distinct definitions into as few registries as names allow, and attributes refusals by
 * the `name: ` prefix of the problems. Definitions whose input schema has a load-time problem are
 * loaded alone first, so that the shared registries rarely need compiling twice.
 */
function loadAll(definitions: readonly Definition[]): {
  registries: Map<string, ToolRegistry>;
  refused: RefusedDefinition[];
} {
  const registries = new Map<string, ToolRegistry>();
  const refused: RefusedDefinition[] = [];
  const suspect = definitions.filter((d) => findSchemaProblems(d.spec.input).length > 0);
  const bins = [
    ...suspect.map((d) => [d]),
    ...binsByName(definitions.filter((d) => !suspect.includes(d))),
  ];
  for (const bin of bins) {
    const { registry, problems } = tryLoad(bin.map((d) => d.spec));
    const problemsOf = (d: Definition) => problems.filter((p) => p.startsWith(`${d.spec.name}: `));
    const bad = bin.filter((d) => problemsOf(d).length > 0);
    refused.push(...bad.map((d) => ({ id: d.id, name: d.original, problems: problemsOf(d) })));
    const good = bin.filter((d) => !bad.includes(d));
    const loaded =
      registry ?? (good.length > 0 ? createToolRegistry(good.map((d) => d.spec)) : undefined);
    for (const d of good) if (loaded !== undefined) registries.set(d.key, loaded);
  }
  return { registries, refused };
}

/** Splits definitions into groups with unique tool names. */
function binsByName(definitions: readonly Definition[]): Definition[][] {
  const bins: Definition[][] = [];
  for (const d of definitions) {
    const bin = bins.find((b) => !b.some((other) => other.spec.name === d.spec.name));
    if (bin === undefined) bins.push([d]);
    else bin.push(d);
  }
  return bins;
}

function tryLoad(specs: readonly ToolSpec[]): {
  registry?: ToolRegistry;
  problems: readonly string[];
} {
  try {
    return { registry: createToolRegistry(specs), problems: [] };
  } catch (error) {
    if (error instanceof ToolDefinitionError) return { problems: error.problems };
    throw error;
  }
}

interface GroundTruthCall {
  readonly id: string;
  readonly original: string;
  readonly candidates: Readonly<Record<string, unknown>>;
  readonly definition: Definition | undefined;
}

function callsOf(category: BfclCategory, definitions: readonly Definition[]): GroundTruthCall[] {
  return category.answers.flatMap((answer) =>
    answer.ground_truth.flatMap((call) =>
      Object.entries(call).map(([original, candidates]) => ({
        id: answer.id,
        original,
        candidates,
        definition: definitions.find((d) => d.id === answer.id && d.original === original),
      })),
    ),
  );
}

function checkCalls(
  calls: readonly GroundTruthCall[],
  registries: ReadonlyMap<string, ToolRegistry>,
): Pick<
  BfclReport,
  'calls' | 'accepted' | 'skipped' | 'dataErrors' | 'mutations' | 'mutationFailures'
> {
  const dataErrors: DataError[] = [];
  const mutations = { missing: tally(), extra: tally(), mistyped: tally(), unknownTool: tally() };
  const mutationFailures: string[] = [];
  let checked = 0;
  for (const call of calls) {
    const registry = call.definition && registries.get(call.definition.key);
    if (call.definition === undefined || registry === undefined) continue;
    checked += 1;
    const args = pickArguments(call.candidates, call.definition.spec.input);
    const decision = checkSchema(
      { callId: call.id, tool: call.definition.spec.name, args },
      registry,
    );
    if (!decision.ok) {
      dataErrors.push({
        id: call.id,
        name: call.original,
        code: decision.code,
        message: decision.publicMessage,
      });
      continue;
    }
    for (const m of mutationsOf(decision.value.tool, args, registry)) {
      const refusal = checkSchema({ callId: call.id, tool: m.tool, args: m.args }, registry);
      mutations[m.kind].generated += 1;
      if (!refusal.ok && refusal.stage === 'schema' && refusal.code === MUTATIONS[m.kind]) {
        mutations[m.kind].refusedAsExpected += 1;
      } else {
        mutationFailures.push(`${call.id} ${m.kind}: ${JSON.stringify(refusal)}`);
      }
    }
  }
  return {
    calls: checked,
    accepted: checked - dataErrors.length,
    skipped: calls.length - checked,
    dataErrors,
    mutations,
    mutationFailures,
  };
}

function tally(): { generated: number; refusedAsExpected: number } {
  return { generated: 0, refusedAsExpected: 0 };
}
