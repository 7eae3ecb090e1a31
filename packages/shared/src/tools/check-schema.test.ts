import { describe, expect, it } from 'vitest';
import type { Rejected } from '../decision.js';
import type { ParsedCall } from '../types.js';
import { checkSchema } from './check-schema.js';
import { createToolRegistry } from './create-tool-registry.js';

/** A value that must never reach a public message: it could be another tenant's identifier. */
const SECRET = 'acme-corp-7731';

const registry = createToolRegistry([
  {
    name: 'search',
    description: 'Searches the knowledge base.',
    version: '3',
    sideEffect: 'read',
    input: {
      type: 'object',
      properties: {
        query: { type: 'string', minLength: 1 },
        max_results: { type: 'integer', minimum: 1, maximum: 50 },
        sort: { enum: ['relevance', 'date'] },
        label: { type: ['string', 'null'] },
        filter: {
          type: 'object',
          properties: { from: { type: 'string', format: 'date' } },
          required: ['from'],
          additionalProperties: false,
        },
      },
      required: ['query'],
      additionalProperties: false,
    },
  },
  {
    name: 'strict_lookup',
    description: 'Needs a key named like an Object.prototype member.',
    version: '1',
    sideEffect: 'read',
    input: {
      type: 'object',
      properties: { toString: { type: 'string' }, valueOf: { type: 'string' } },
      required: ['toString', 'valueOf'],
      additionalProperties: false,
    },
  },
]);

const call = (args: unknown, tool = 'search'): ParsedCall => ({
  callId: 'call_1',
  tool,
  args: args as Record<string, unknown>,
});

/** The refusal of `args`; fails the test when they are accepted. */
function refusal(args: unknown, tool = 'search'): Rejected<'schema'> {
  const decision = checkSchema(call(args, tool), registry);
  if (decision.ok) expect.fail(`accepted ${JSON.stringify(args)}`);
  expect(decision.stage).toBe('schema');
  expect(decision.disposition).toBe('repair');
  expect(decision.publicMessage).not.toContain(SECRET);
  return decision;
}

describe('checkSchema', () => {
  it('accepts declared arguments of the declared types and carries the call through', () => {
    const decision = checkSchema(
      { ...call({ query: 'refund policy', max_results: 5, label: null }), repaired: 'fence' },
      registry,
    );
    expect(decision.ok).toBe(true);
    if (decision.ok) {
      expect(decision.value.tool.name).toBe('search');
      expect(decision.value.args).toEqual({ query: 'refund policy', max_results: 5, label: null });
      expect(decision.value).toMatchObject({ callId: 'call_1', repaired: 'fence' });
    }
  });

  it('leaves repaired unset when no repair was made', () => {
    const decision = checkSchema(call({ query: 'x' }), registry);
    expect(decision.ok && 'repaired' in decision.value).toBe(false);
  });

  it('refuses an unknown tool without echoing its name', () => {
    const r = refusal({}, SECRET);
    expect(r.code).toBe('unknown_tool');
    expect(r.internalDetail).toContain(SECRET);
  });

  it.each(['constructor', '__proto__', 'toString', 'hasOwnProperty'])(
    'refuses %j as a tool name: it is not a tool',
    (name) => {
      expect(refusal({ query: 'x' }, name).code).toBe('unknown_tool');
    },
  );

  it('refuses a model-supplied tenant_id as unexpected_field, naming it but not its value', () => {
    const r = refusal({ query: 'x', tenant_id: SECRET });
    expect(r.code).toBe('unexpected_field');
    expect(r.publicMessage).toBe('Argument `tenant_id` is not accepted by `search`.');
    expect(r.internalDetail).not.toContain(SECRET);
  });

  it('refuses an unknown nested field by its JSON pointer', () => {
    const r = refusal({ query: 'x', filter: { from: '2024-01-01', owner: SECRET } });
    expect(r).toMatchObject({
      code: 'unexpected_field',
      publicMessage: 'Argument `/filter/owner` is not accepted by `search`.',
    });
  });

  it('refuses an own __proto__ key, as JSON.parse makes it, as an unexpected field', () => {
    const args: unknown = JSON.parse(`{"query":"x","__proto__":{"isAdmin":"${SECRET}"}}`);
    expect(refusal(args).code).toBe('unexpected_field');
  });

  it('refuses a missing required argument as missing_field', () => {
    expect(refusal({ max_results: 3 })).toMatchObject({
      code: 'missing_field',
      publicMessage: 'Argument `query` is required by `search`.',
    });
    expect(refusal({ query: 'x', filter: {} }).publicMessage).toBe(
      'Argument `/filter/from` is required by `search`.',
    );
  });

  it('counts only own properties: an inherited toString does not satisfy required', () => {
    expect(refusal({}, 'strict_lookup')).toMatchObject({
      code: 'missing_field',
      publicMessage:
        'Argument `toString` is required by `strict_lookup`. Argument `valueOf` is required by `strict_lookup`.',
    });
    const inherited = Object.create({ toString: 'a', valueOf: 'b' }) as object;
    expect(refusal(inherited, 'strict_lookup').code).toBe('missing_field');
  });

  it('refuses a value of the wrong JSON type as wrong_type, naming every accepted type', () => {
    expect(refusal({ query: 'x', max_results: SECRET })).toMatchObject({
      code: 'wrong_type',
      publicMessage: 'Argument `max_results` must be an integer.',
    });
    expect(refusal({ query: 'x', label: 7 }).publicMessage).toBe(
      'Argument `label` must be a string or null.',
    );
  });

  it('refuses arguments that are not an object as wrong_type', () => {
    for (const args of [[SECRET], SECRET, 42, null]) {
      expect(refusal(args)).toMatchObject({
        code: 'wrong_type',
        publicMessage: 'The arguments of `search` must be a JSON object.',
      });
    }
  });

  it.each([
    [{ query: '' }, 'Argument `query` must be at least 1 character long.'],
    [{ query: 'x', max_results: 51 }, 'Argument `max_results` must be <= 50.'],
    [{ query: 'x', sort: SECRET }, 'Argument `sort` must be one of "relevance", "date".'],
    [{ query: 'x', filter: { from: SECRET } }, 'Argument `/filter/from` must be a valid date.'],
  ])('refuses a value outside the schema as invalid_value: %j', (args, message) => {
    expect(refusal(args)).toMatchObject({ code: 'invalid_value', publicMessage: message });
  });

  it('reports every problem at once, with the code of the most decisive one', () => {
    const r = refusal({ max_results: SECRET, sort: SECRET, user: SECRET });
    expect(r.code).toBe('unexpected_field');
    expect(r.publicMessage).toBe(
      [
        'Argument `user` is not accepted by `search`.',
        'Argument `query` is required by `search`.',
        'Argument `max_results` must be an integer.',
        'Argument `sort` must be one of "relevance", "date".',
      ].join(' '),
    );
  });

  it('orders missing before wrong type before invalid value', () => {
    expect(refusal({ max_results: 0 }).code).toBe('missing_field');
    expect(refusal({ query: 1, max_results: 0 }).code).toBe('wrong_type');
  });

  it('spells out five problems and counts the rest', () => {
    const args = Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`extra${i}`, SECRET]));
    const r = refusal({ query: 'x', ...args });
    expect(r.publicMessage.match(/is not accepted/g)).toHaveLength(5);
    expect(r.publicMessage).toMatch(/\(3 more problems\.\)$/);
  });

  it('clips a long unexpected field name and strips control characters and backticks', () => {
    const name = `a\u0000\`${'x'.repeat(200)}`;
    const r = refusal({ query: 'x', [name]: 1 });
    expect(r.publicMessage).toBe(
      `Argument \`a??${'x'.repeat(60)}…\` is not accepted by \`search\`.`,
    );
  });
});
