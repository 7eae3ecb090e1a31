/**
 * The baseline: the cheapest thing that "decodes and checks" a tool call. Native `JSON.parse` of
 * the text the model wrote, then an ajv (draft 2020-12) validator compiled once per tool schema,
 * with ajv's defaults (first error only, formats not asserted). No envelope, no limits, no
 * semantics, no identity, no policy: everything the ladder adds is what the ratio measures.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import type { BaselineInput } from './build-mix.js';

/** A tool as the baseline knows it: a name and an input schema. */
export interface BaselineTool {
  readonly name: string;
  readonly input: object;
}

/** Decodes and validates one call; true when the arguments fit their tool's schema. */
export type Baseline = (input: BaselineInput) => boolean;

/** Compiles every tool's schema once and returns the checker. */
export function createBaseline(tools: readonly BaselineTool[]): Baseline {
  const ajv = new Ajv2020({ strict: false });
  const validators = new Map<string, ValidateFunction>(
    tools.map((t) => [t.name, ajv.compile(t.input)]),
  );
  return (input) => {
    let value: unknown;
    try {
      value = JSON.parse(input.text);
    } catch {
      return false;
    }
    if (input.shape === 'arguments') return validators.get(input.tool)?.(value) ?? false;
    if (typeof value !== 'object' || value === null) return false;
    const { action, arguments: args } = value as { action?: unknown; arguments?: unknown };
    return typeof action === 'string' && (validators.get(action)?.(args) ?? false);
  };
}
