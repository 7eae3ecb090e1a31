/**
 * Turns the validator's complaints about a call's arguments into problems a model can act on:
 * a schema-rung code and a sentence naming the argument and what is wrong. Sentences are built
 * from argument names and schema parameters only, never from the values the model sent.
 */
import type { ErrorObject } from 'ajv/dist/2020.js';
import type { CodeOf } from '../catalogue.js';

/** The schema codes an argument problem can carry (`unknown_tool` is about the call, not an argument). */
export type ArgumentCode = Exclude<CodeOf<'schema'>, 'unknown_tool'>;

/** Which problem decides the refusal's code when a call has several. */
export const ARGUMENT_CODE_ORDER: readonly ArgumentCode[] = [
  'unexpected_field',
  'missing_field',
  'wrong_type',
  'invalid_value',
];

/** One problem with one argument. */
export interface ArgumentProblem {
  readonly code: ArgumentCode;
  /** JSON pointer of the argument, `''` for the arguments object itself. */
  readonly pointer: string;
  /** Public sentence: names the argument and what is wrong; never contains the value. */
  readonly text: string;
}

/** Keywords that only say "some branch failed"; dropped when a branch said something precise. */
const COMPOSITE = new Set(['anyOf', 'oneOf', 'if', 'not', 'dependentSchemas']);

const TYPE_PHRASES: Readonly<Record<string, string>> = {
  string: 'a string',
  number: 'a number',
  integer: 'an integer',
  boolean: 'true or false',
  object: 'an object',
  array: 'an array',
  null: 'null',
};

/**
 * The problems of one call, most decisive first (ordered by {@link ARGUMENT_CODE_ORDER}, then as
 * the validator found them), without duplicates.
 */
export function argumentProblems(errors: readonly ErrorObject[], tool: string): ArgumentProblem[] {
  const precise = errors.filter((e) => !COMPOSITE.has(e.keyword));
  const problems = [...mergeTypeErrors(precise, tool), ...otherProblems(precise, tool)];
  const composite = errors
    .filter(
      (e) => COMPOSITE.has(e.keyword) && !precise.some((p) => p.instancePath === e.instancePath),
    )
    .map((e) => invalid(e.instancePath, `does not match the schema of \`${tool}\``));
  return dedupe([...problems, ...composite]).sort(
    (a, b) => ARGUMENT_CODE_ORDER.indexOf(a.code) - ARGUMENT_CODE_ORDER.indexOf(b.code),
  );
}

/** One `wrong_type` per argument, naming every type its schema branches would accept. */
function mergeTypeErrors(errors: readonly ErrorObject[], tool: string): ArgumentProblem[] {
  const byPointer = new Map<string, Set<string>>();
  for (const e of errors.filter((e) => e.keyword === 'type')) {
    const types = byPointer.get(e.instancePath) ?? new Set<string>();
    for (const t of String(e.params.type).split(',')) types.add(t);
    byPointer.set(e.instancePath, types);
  }
  return [...byPointer].map(([pointer, types]) => ({
    code: 'wrong_type',
    pointer,
    text:
      pointer === ''
        ? `The arguments of \`${tool}\` must be a JSON object.`
        : `${subject(pointer)} must be ${[...types].map((t) => TYPE_PHRASES[t] ?? t).join(' or ')}.`,
  }));
}

function otherProblems(errors: readonly ErrorObject[], tool: string): ArgumentProblem[] {
  return errors.filter((e) => e.keyword !== 'type').map((e) => problemOf(e, tool));
}

function problemOf(e: ErrorObject, tool: string): ArgumentProblem {
  const params = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'additionalProperties':
    case 'unevaluatedProperties': {
      const name = params.additionalProperty ?? params.unevaluatedProperty;
      const pointer = childPointer(e.instancePath, String(name));
      return {
        code: 'unexpected_field',
        pointer,
        text: `${subject(pointer)} is not accepted by \`${tool}\`.`,
      };
    }
    case 'required':
    case 'dependentRequired': {
      const pointer = childPointer(e.instancePath, String(params.missingProperty));
      return {
        code: 'missing_field',
        pointer,
        text: `${subject(pointer)} is required by \`${tool}\`.`,
      };
    }
    default:
      return invalid(e.instancePath, valueRule(e.keyword, params, tool));
  }
}

function invalid(pointer: string, rule: string): ArgumentProblem {
  return { code: 'invalid_value', pointer, text: `${subject(pointer)} ${rule}.` };
}

/** What the value must satisfy, in words built from the schema's parameters only. */
function valueRule(keyword: string, params: Record<string, unknown>, tool: string): string {
  const limit = String(params.limit);
  switch (keyword) {
    case 'enum':
      return `must be one of ${listValues(params.allowedValues)}`;
    case 'const':
      return `must be ${listValues([params.allowedValue])}`;
    case 'pattern':
      return `must match the pattern \`${clip(String(params.pattern), 100)}\``;
    case 'format':
      return `must be a valid ${String(params.format)}`;
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return `must be ${String(params.comparison)} ${limit}`;
    case 'multipleOf':
      return `must be a multiple of ${String(params.multipleOf)}`;
    case 'minLength':
      return `must be at least ${count(limit, 'character')} long`;
    case 'maxLength':
      return `must be at most ${count(limit, 'character')} long`;
    case 'minItems':
      return `must have at least ${count(limit, 'item')}`;
    case 'maxItems':
    case 'items':
      return `must have at most ${count(limit, 'item')}`;
    case 'minProperties':
      return `must have at least ${count(limit, 'field')}`;
    case 'maxProperties':
      return `must have at most ${count(limit, 'field')}`;
    case 'uniqueItems':
      return 'must not contain duplicate items';
    case 'false schema':
      return `is not allowed by \`${tool}\``;
    default:
      return `does not match the schema of \`${tool}\``;
  }
}

function count(n: string, noun: string): string {
  return `${n} ${noun}${n === '1' ? '' : 's'}`;
}

/** Schema values (enum members, consts) as JSON, at most eight of them. */
function listValues(values: unknown): string {
  const list = Array.isArray(values) ? values : [];
  const shown = list.slice(0, 8).map((v) => clip(JSON.stringify(v) ?? 'null', 60));
  return shown.join(', ') + (list.length > shown.length ? ', …' : '');
}

function childPointer(parent: string, name: string): string {
  return `${parent}/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`;
}

/**
 * "Argument `name`" for a top-level argument, "Argument `/a/b`" for a nested one, "The arguments"
 * for the object itself. Names may come from the model (an unexpected field), so they are
 * clipped and stripped of control characters and backticks.
 */
function subject(pointer: string): string {
  if (pointer === '') return 'The arguments';
  const topLevel = pointer.lastIndexOf('/') === 0;
  const shown = topLevel ? pointer.slice(1).replace(/~1/g, '/').replace(/~0/g, '~') : pointer;
  return `Argument \`${clip(shown.replace(/[\p{C}`]/gu, '?'), 64)}\``;
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function dedupe(problems: readonly ArgumentProblem[]): ArgumentProblem[] {
  const byText = new Map<string, ArgumentProblem>();
  for (const p of problems) if (!byText.has(p.text)) byText.set(p.text, p);
  return [...byText.values()];
}
