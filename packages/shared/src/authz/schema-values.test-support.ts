/**
 * Arbitrary JSON values shaped by a tool input schema, edge cases first: whole numbers past 2^53
 * and 2^63, fractions with many digits, -0, unpaired surrogates, keys Cedar's JSON reserves. Many
 * break the schema; callers keep those the gate's own validator accepts. Also arbitrary schemas
 * of the kinds tools declare.
 */
import fc from 'fast-check';
import type { JsonSchema } from '../tool-spec.js';

type Schema = Readonly<Record<string, unknown>>;

/** Property names awkward for Cedar: not identifiers, reserved by its JSON, empty, non-ASCII. */
export const PROPERTY_NAMES = ['a', 'b', 'a-b', '', 'x y', '__extn', '__entity', 'ü'];

/** Keys an open object may carry: the property names and text no schema can name (ajv refuses). */
const AWKWARD_KEYS = [...PROPERTY_NAMES, '\ud800'];

const numbers = fc.oneof(
  fc.integer(),
  {
    arbitrary: fc.constantFrom(0, -0, 5, 6, 50_000, 50_001, 2 ** 53, 2 ** 63, -(2 ** 63), 1e300),
    weight: 3,
  },
  fc.constantFrom(0.5, 1.25, 500.0001, 500.00001, 0.1 + 0.2, 922337203685477.6, 1e-7),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);

const strings = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary' }),
  fc.constantFrom('\ud800', 'a\udfffb', '😀', 'inv_1', 'pay_1', '"; permit'),
);

const anyJson: fc.Arbitrary<unknown> = fc.jsonValue({ maxDepth: 3 });

/** Values of the type(s) `schema` names, or any JSON when it names none. */
export function valuesFor(schema: unknown, depth = 0): fc.Arbitrary<unknown> {
  if (typeof schema !== 'object' || schema === null || depth > 8) return anyJson;
  const s = schema as Schema;
  if (Array.isArray(s['enum'])) return fc.constantFrom(...(s['enum'] as unknown[]));
  if ('const' in s) return fc.constant(s['const']);
  const types = Array.isArray(s['type']) ? (s['type'] as string[]) : [s['type']];
  const arbitraries = types.map((type) => valuesOfType(s, type, depth));
  return arbitraries.length === 1 ? arbitraries[0]! : fc.oneof(...arbitraries);
}

function valuesOfType(s: Schema, type: unknown, depth: number): fc.Arbitrary<unknown> {
  switch (type) {
    case 'string':
      return typeof s['pattern'] === 'string'
        ? fc.oneof({ arbitrary: fc.stringMatching(new RegExp(s['pattern'])), weight: 3 }, strings)
        : strings;
    case 'integer':
    case 'number':
      return numbers;
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return fc.array(valuesFor(s['items'], depth + 1), { maxLength: 4 });
    case 'object':
      return objectsFor(s, depth);
    default:
      return anyJson;
  }
}

function objectsFor(s: Schema, depth: number): fc.Arbitrary<unknown> {
  const properties = (s['properties'] ?? {}) as Record<string, unknown>;
  const required = Array.isArray(s['required']) ? (s['required'] as string[]) : [];
  // Required members are always there (their values may still break the schema); others may be
  // left out or, now and then, null.
  const declared = fc.record(
    Object.fromEntries(
      Object.entries(properties).map(([k, v]) => {
        const values = valuesFor(v, depth + 1);
        return [k, required.includes(k) ? values : fc.oneof(values, fc.constant(null))];
      }),
    ),
    { requiredKeys: required.filter((k) => k in properties) },
  );
  const extra = s['additionalProperties'];
  if (extra === false || extra === undefined) return declared;
  const others = fc.dictionary(fc.constantFrom(...AWKWARD_KEYS), valuesFor(extra, depth + 1), {
    maxKeys: 3,
  });
  return fc.tuple(others, declared).map(([o, d]) => ({ ...o, ...d }));
}

const leaves: fc.Arbitrary<Schema> = fc.constantFrom(
  { type: 'string' },
  { type: 'integer' },
  { type: 'number' },
  { type: 'boolean' },
  { type: 'null' },
  { type: ['string', 'null'] },
  { type: ['integer', 'string'] },
  { type: ['number', 'null'] },
  { enum: ['low', 'high', 3] },
);

/** Object schemas, closed or open, nested a few levels, over {@link PROPERTY_NAMES}. */
export const toolSchemas: fc.Arbitrary<JsonSchema> = fc.letrec<{ node: Schema; object: Schema }>(
  (tie) => ({
    node: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      leaves,
      tie('object'),
      tie('node').map((items) => ({ type: 'array', items })),
    ),
    object: fc
      .tuple(
        fc.dictionary(fc.constantFrom(...PROPERTY_NAMES), tie('node'), { maxKeys: 4 }),
        fc.oneof(fc.constant(false), tie('node')),
      )
      .map(([properties, additionalProperties]) => ({
        type: 'object',
        properties,
        additionalProperties,
      })),
  }),
).object;
