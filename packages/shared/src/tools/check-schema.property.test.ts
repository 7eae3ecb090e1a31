import { Ajv2020 } from 'ajv/dist/2020.js';
import { formatNames, fullFormats } from 'ajv-formats/dist/formats.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { JsonSchema } from '../tool-spec.js';
import { checkSchema } from './check-schema.js';
import { createToolRegistry } from './create-tool-registry.js';

const closed = (properties: Record<string, unknown>, required: string[] = []) => ({
  type: 'object',
  properties,
  required,
  additionalProperties: false,
});

/** A handful of sample tools covering the keywords real tools use. */
const SAMPLES: Readonly<Record<string, { input: JsonSchema; valid: fc.Arbitrary<unknown> }>> = {
  search: {
    input: closed(
      {
        query: { type: 'string', minLength: 1, maxLength: 40 },
        max_results: { type: 'integer', minimum: 1, maximum: 50 },
        sort: { enum: ['relevance', 'date'] },
        label: { type: ['string', 'null'] },
      },
      ['query'],
    ),
    valid: fc.record(
      {
        query: fc.string({ minLength: 1, maxLength: 40 }),
        max_results: fc.integer({ min: 1, max: 50 }),
        sort: fc.constantFrom('relevance', 'date'),
        label: fc.option(fc.string(), { nil: null }),
      },
      { requiredKeys: ['query'] },
    ),
  },
  book: {
    input: closed(
      {
        when: { type: 'string', format: 'date' },
        room: { type: 'string', pattern: '^[A-Z][0-9]{1,2}$' },
        guests: {
          type: 'array',
          items: closed({ name: { type: 'string' }, vip: { type: 'boolean' } }, ['name']),
          maxItems: 3,
        },
        price: { type: 'number', exclusiveMinimum: 0, multipleOf: 0.5 },
      },
      ['when', 'room'],
    ),
    valid: fc.record(
      {
        when: fc.constantFrom('2024-02-29', '2025-12-31', '1999-01-01'),
        room: fc.stringMatching(/^[A-Z][0-9]{1,2}$/),
        guests: fc.array(
          fc.record({ name: fc.string(), vip: fc.boolean() }, { requiredKeys: ['name'] }),
          { maxLength: 3 },
        ),
        price: fc.integer({ min: 1, max: 1000 }).map((n) => n / 2),
      },
      { requiredKeys: ['when', 'room'] },
    ),
  },
  route: {
    input: closed(
      {
        target: {
          anyOf: [closed({ id: { type: 'string' } }, ['id']), { type: 'null' }],
        },
        tags: { type: 'array', items: { type: 'string' }, uniqueItems: true },
        options: closed({ fast: { type: 'boolean' }, depth: { type: 'integer' } }),
      },
      ['target'],
    ),
    valid: fc.record(
      {
        target: fc.option(fc.record({ id: fc.string() }), { nil: null }),
        tags: fc.uniqueArray(fc.string()),
        options: fc.record({ fast: fc.boolean(), depth: fc.integer() }, { requiredKeys: [] }),
      },
      { requiredKeys: ['target'] },
    ),
  },
  ping: { input: closed({}), valid: fc.constant({}) },
};

const registry = createToolRegistry(
  Object.entries(SAMPLES).map(([name, { input }]) => ({
    name,
    description: `Sample tool ${name}.`,
    version: '1',
    sideEffect: 'read' as const,
    input,
  })),
);

/**
 * The oracle: an independent Ajv2020 with ajv's defaults, plus format assertion (which the gate
 * does by design, see VALIDATOR_OPTIONS). The sample schemas use no Object.prototype names, so
 * ajv's default `ownProperties: false` agrees with the gate's `true` on them.
 */
const oracle = new Ajv2020();
for (const name of formatNames) oracle.addFormat(name, fullFormats[name]);
const oracleFor = Object.fromEntries(
  Object.entries(SAMPLES).map(([name, { input }]) => [name, oracle.compile(input)]),
);

/** One random edit of an argument object, at any depth. */
interface Mutation {
  readonly target: number;
  readonly kind: 'delete' | 'set';
  readonly key: number | string;
  readonly value: unknown;
}

const mutation: fc.Arbitrary<Mutation> = fc.record({
  target: fc.nat(),
  kind: fc.constantFrom('delete', 'set'),
  key: fc.oneof(fc.nat(), fc.string(), fc.constantFrom('__proto__', 'constructor', 'tenant_id')),
  value: fc.jsonValue({ maxDepth: 3 }),
});

function objectsIn(value: unknown): Record<string, unknown>[] {
  if (typeof value !== 'object' || value === null) return [];
  const children = Object.values(value).flatMap(objectsIn);
  return Array.isArray(value) ? children : [value as Record<string, unknown>, ...children];
}

/** Applies `m` to a copy of `args`; keys are defined, so `__proto__` becomes an own property. */
function mutate(args: unknown, m: Mutation): unknown {
  const copy = structuredClone(args);
  const objects = objectsIn(copy);
  const target = objects[m.target % Math.max(objects.length, 1)];
  if (target === undefined) return m.value;
  const keys = Object.keys(target);
  const key = typeof m.key === 'number' ? keys[m.key % Math.max(keys.length, 1)] : m.key;
  if (key === undefined) return copy;
  if (m.kind === 'delete') delete target[key];
  else
    Object.defineProperty(target, key, {
      value: m.value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  return copy;
}

/** checkSchema's verdict on `args`, which must agree with the oracle's and never throw. */
function agreesWithOracle(tool: string, args: unknown): void {
  const decision = checkSchema(
    { callId: 'c', tool, args: args as Record<string, unknown> },
    registry,
  );
  expect(decision.ok).toBe(oracleFor[tool]!(args));
  if (!decision.ok) {
    expect(decision.stage).toBe('schema');
    expect(['unexpected_field', 'missing_field', 'wrong_type', 'invalid_value']).toContain(
      decision.code,
    );
  }
}

const tools = Object.keys(SAMPLES);

describe('checkSchema, property-based', () => {
  it.each(tools)('accepts every generated valid call of %s', (tool) => {
    fc.assert(fc.property(SAMPLES[tool]!.valid, (args) => agreesWithOracle(tool, args)));
  });

  it.each(tools)('accepts arbitrary JSON as %s arguments only when the schema does', (tool) => {
    const anyArgs = fc.oneof(
      fc.jsonValue(),
      fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 3 })),
    );
    fc.assert(
      fc.property(anyArgs, (args) => agreesWithOracle(tool, args)),
      { numRuns: 300 },
    );
  });

  it.each(tools)('accepts mutated valid %s arguments only when the schema does', (tool) => {
    const mutated = fc
      .tuple(SAMPLES[tool]!.valid, fc.array(mutation, { minLength: 1, maxLength: 3 }))
      .map(([args, edits]) => edits.reduce(mutate, args));
    fc.assert(
      fc.property(mutated, (args) => agreesWithOracle(tool, args)),
      { numRuns: 500 },
    );
  });

  it('never puts a value the model sent into the public message', () => {
    const marked = fc.string().map((s) => `⟦${s}⟧`);
    const values = fc.jsonValue({ maxDepth: 3 }).map((v) => markStrings(v, '⟦x⟧'));
    const args = fc.tuple(
      fc.constantFrom(...tools),
      fc.dictionary(fc.string(), fc.oneof(marked, values)),
    );
    fc.assert(
      fc.property(args, ([tool, a]) => {
        const decision = checkSchema({ callId: 'c', tool, args: a }, registry);
        if (!decision.ok) expect(decision.publicMessage).not.toMatch(/[⟦⟧]/);
      }),
      { numRuns: 500 },
    );
  });
});

/** Replaces every string inside a JSON value (keys excepted) by `marker`. */
function markStrings(value: unknown, marker: string): unknown {
  if (typeof value === 'string') return marker;
  if (Array.isArray(value)) return value.map((v) => markStrings(v, marker));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, markStrings(v, marker)]));
  }
  return value;
}
