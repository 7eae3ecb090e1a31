import { describe, expect, it } from 'vitest';
import type { JsonSchema, ToolSpec } from '../tool-spec.js';
import {
  createToolRegistry,
  DEFAULT_RESULT_MAX_BYTES,
  DEFAULT_TIMEOUT_MS,
  type AnyToolSpec,
} from './create-tool-registry.js';
import { defineTool } from './define-tool.js';
import { ToolDefinitionError } from './tool-definition-error.js';

const closed = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  type: 'object',
  properties,
  additionalProperties: false,
  ...extra,
});

const tool = (overrides: Partial<ToolSpec> = {}): ToolSpec => ({
  name: 'search',
  description: 'Searches the knowledge base.',
  version: '1',
  sideEffect: 'read',
  input: closed({ query: { type: 'string' } }, { required: ['query'] }),
  ...overrides,
});

const withInput = (input: JsonSchema, name = 'search') => tool({ name, input });

/** The problems a load refuses with; fails the test when the load succeeds. */
function problemsOf(
  specs: readonly AnyToolSpec[],
  ceilings?: Parameters<typeof createToolRegistry>[1],
): readonly string[] {
  try {
    createToolRegistry(specs, ceilings);
  } catch (error) {
    expect(error).toBeInstanceOf(ToolDefinitionError);
    return (error as ToolDefinitionError).problems;
  }
  expect.fail('the registry loaded definitions it should have refused');
}

describe('createToolRegistry', () => {
  it('loads a closed tool with the documented defaults', () => {
    const registry = createToolRegistry([tool()]);
    const search = registry.get('search');
    expect(search).toMatchObject({
      name: 'search',
      timeoutMs: DEFAULT_TIMEOUT_MS,
      resultMaxBytes: DEFAULT_RESULT_MAX_BYTES,
    });
    expect(search?.validateOutput).toBeUndefined();
    expect(registry.list().map((t) => t.name)).toEqual(['search']);
  });

  it('keeps the tools in definition order and takes the declared ceilings', () => {
    const registry = createToolRegistry([
      tool({ name: 'b', timeoutMs: 2_500, result: { maxBytes: 1_024 } }),
      tool({ name: 'a' }),
    ]);
    expect(registry.list().map((t) => t.name)).toEqual(['b', 'a']);
    expect(registry.get('b')).toMatchObject({ timeoutMs: 2_500, resultMaxBytes: 1_024 });
  });

  it("takes the deployment's ceilings as the timeout and output ceiling of a tool that sets none", () => {
    const registry = createToolRegistry([tool()], { toolTimeoutMs: 2_000, resultBytes: 4_096 });
    expect(registry.get('search')).toMatchObject({ timeoutMs: 2_000, resultMaxBytes: 4_096 });
  });

  it("keeps a tool's own values at or below the deployment's ceilings", () => {
    const registry = createToolRegistry(
      [
        tool({ name: 'a', timeoutMs: 2_000, result: { maxBytes: 4_096 } }),
        tool({ name: 'b', timeoutMs: 500, result: { maxBytes: 1 } }),
      ],
      { toolTimeoutMs: 2_000, resultBytes: 4_096 },
    );
    expect(registry.get('a')).toMatchObject({ timeoutMs: 2_000, resultMaxBytes: 4_096 });
    expect(registry.get('b')).toMatchObject({ timeoutMs: 500, resultMaxBytes: 1 });
  });

  it('looks tools up by own name only, so Object.prototype members are not tools', () => {
    const registry = createToolRegistry([tool()]);
    for (const name of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
      expect(registry.get(name)).toBeUndefined();
    }
  });

  it('compiles a frozen copy, so changing the definition afterwards changes nothing', () => {
    const input = closed({ query: { type: 'string' } }, { required: ['query'] });
    const registry = createToolRegistry([withInput(input)]);
    input.properties.query = { type: 'integer' };
    const search = registry.get('search');
    expect(search?.inputErrors({ query: 'x' })).toEqual([]);
    expect(Object.isFrozen(search?.spec.input)).toBe(true);
  });

  it('compiles a declared output schema into validateOutput', () => {
    const registry = createToolRegistry([
      tool({
        result: {
          outputSchema: {
            type: 'object',
            properties: { hits: { type: 'array', items: { type: 'string' } } },
            required: ['hits'],
          },
        },
      }),
    ]);
    const validate = registry.get('search')?.validateOutput;
    expect(validate?.({ hits: [] })).toBe(true);
    expect(validate?.({})).toBe(false);
  });

  it('accepts nested closed objects, arrays of closed objects, closed anyOf branches and local refs', () => {
    const input = closed(
      {
        filter: closed({ from: { type: 'string', format: 'date' } }),
        tags: { type: 'array', items: closed({ label: { type: 'string' } }) },
        target: { anyOf: [closed({ id: { type: 'string' } }), { type: 'null' }] },
        node: { $ref: '#/$defs/node' },
        mode: { enum: ['fast', { deep: true }] },
      },
      {
        $defs: {
          node: closed({ children: { type: 'array', items: { $ref: '#/$defs/node' } } }),
        },
      },
    );
    expect(() => createToolRegistry([withInput(input)])).not.toThrow();
  });

  it('accepts an object closed by unevaluatedProperties over properties declared in allOf', () => {
    const input = {
      type: 'object',
      allOf: [{ properties: { a: { type: 'string' } } }, { $ref: '#/$defs/b' }],
      unevaluatedProperties: false,
      $defs: { b: { type: 'object', properties: { b: { type: 'integer' } } } },
    };
    expect(() => createToolRegistry([withInput(input)])).not.toThrow();
  });

  it('refuses required-only anyOf branches (strictRequired) but accepts them with the property repeated', () => {
    const properties = { a: { type: 'string' }, b: { type: 'string' } };
    const bare = closed(properties, { anyOf: [{ required: ['a'] }, { required: ['b'] }] });
    expect(problemsOf([withInput(bare)]).join('\n')).toMatch(/strictRequired/);
    const repeated = closed(properties, {
      anyOf: [
        { required: ['a'], properties: { a: properties.a } },
        { required: ['b'], properties: { b: properties.b } },
      ],
    });
    expect(() => createToolRegistry([withInput(repeated)])).not.toThrow();
  });

  it('types a deployment file through defineTool without changing the spec', () => {
    const spec = tool({ semantics: (args) => (args.query === '' ? undefined : undefined) });
    expect(defineTool(spec)).toBe(spec);
  });
});

describe('createToolRegistry refuses at load', () => {
  it('reports every problem of every tool at once, each naming its tool', () => {
    const problems = problemsOf([
      tool({ name: 'bad.name' }),
      withInput({ type: 'object', properties: { tenant_id: { type: 'string' } } }, 'leaky'),
      tool({ name: 'wipe', sideEffect: 'destructive' }),
    ]);
    expect(problems).toHaveLength(4);
    expect(problems[0]).toMatch(/^bad\.name: the name must match/);
    expect(problems.filter((p) => p.startsWith('leaky: '))).toHaveLength(2);
    expect(problems[3]).toMatch(/^wipe: .*card builder is required/);
  });

  it('puts every problem in the error message, for the start-up log', () => {
    const error = (() => {
      try {
        createToolRegistry([tool({ name: '' }), tool({ version: '' })]);
      } catch (e) {
        return e as ToolDefinitionError;
      }
      return undefined;
    })();
    expect(error?.message).toMatch(/2 problems/);
    expect(error).toMatchObject({ code: 'tool_definition_invalid', retriable: false });
    for (const p of error?.problems ?? []) expect(error?.message).toContain(p);
  });

  it.each([
    ['', 'empty'],
    ['1search', 'starting with a digit'],
    ['search.web', 'with a dot'],
    ['a'.repeat(65), 'longer than 64'],
    ['constructor', 'reserved by JavaScript'],
    ['prototype', 'reserved by JavaScript'],
  ])('a tool name %j (%s)', (name) => {
    expect(problemsOf([tool({ name })])).toHaveLength(1);
  });

  it.each(['read', 'write', 'destructive', 'approve'])(
    'a tool name %j, which names an action of the policy model (every call would be a policy error)',
    (name) => {
      expect(problemsOf([tool({ name })])).toEqual([
        `${name}: "${name}" names an action group or the approval in the policies; choose another name`,
      ]);
    },
  );

  it('entries that are not tool definitions at all', () => {
    expect(problemsOf([tool(), undefined as never, null as never])).toEqual([
      'tool #1: not a tool definition',
      'tool #2: not a tool definition',
    ]);
  });

  it('duplicate names', () => {
    expect(problemsOf([tool(), tool()])).toEqual(['search: the name is used by another tool']);
  });

  it('a missing description or version and an unknown side-effect class', () => {
    const problems = problemsOf([
      tool({ description: ' ', version: '', sideEffect: 'delete' as never }),
    ]);
    expect(problems).toHaveLength(3);
  });

  it('a confirmation rule that is blank, too long or not text', () => {
    const problems = problemsOf([
      tool({ name: 'a', confirmationRule: '  ' }),
      tool({ name: 'b', confirmationRule: 'x'.repeat(501) }),
      tool({ name: 'c', confirmationRule: 7 as never }),
      tool({ name: 'd', confirmationRule: 'A person reads every reply first.' }),
    ]);
    expect(problems).toEqual(
      ['a', 'b', 'c'].map((n) => `${n}: confirmationRule must be text of 1 to 500 characters`),
    );
  });

  it('ceilings that are not positive whole numbers', () => {
    const problems = problemsOf([tool({ timeoutMs: 0, result: { maxBytes: 1.5 } })]);
    expect(problems).toEqual([
      'search: timeoutMs must be a positive whole number of milliseconds',
      'search: result.maxBytes must be a positive whole number of bytes',
    ]);
  });

  it("a tool's own timeout or output ceiling above the deployment's ceiling", () => {
    const problems = problemsOf(
      [tool({ timeoutMs: 2_001, result: { maxBytes: 4_097 } }), tool({ name: 'ok' })],
      { toolTimeoutMs: 2_000, resultBytes: 4_096 },
    );
    expect(problems).toEqual([
      "search: timeoutMs 2001 is above the deployment's toolTimeoutMs ceiling of 2000",
      "search: result.maxBytes 4097 is above the deployment's resultBytes ceiling of 4096",
    ]);
  });

  it('a tool above the default ceilings when the deployment sets none', () => {
    expect(problemsOf([tool({ timeoutMs: 10_001, result: { maxBytes: 65_537 } })])).toEqual([
      "search: timeoutMs 10001 is above the deployment's toolTimeoutMs ceiling of 10000",
      "search: result.maxBytes 65537 is above the deployment's resultBytes ceiling of 65536",
    ]);
  });

  it('callbacks that are not functions', () => {
    expect(problemsOf([tool({ semantics: 'nope' as never })])).toEqual([
      'search: semantics must be a function',
    ]);
  });

  it('an input schema that is not type "object"', () => {
    for (const input of [
      { type: 'array', items: { type: 'string' } },
      { type: ['object', 'null'] },
    ]) {
      expect(problemsOf([withInput(input)]).join('\n')).toMatch(/must have "type": "object"/);
    }
  });

  it.each([
    ['the root', { type: 'object', properties: { q: { type: 'string' } } }, '#'],
    ['a nested object', closed({ f: { type: 'object', properties: {} } }), '#/properties/f'],
    [
      'an object in array items',
      closed({ l: { type: 'array', items: { type: 'object' } } }),
      '#/properties/l/items',
    ],
    [
      'additionalProperties given as a schema',
      closed({ m: { type: 'object', additionalProperties: { type: 'string' } } }),
      '#/properties/m',
    ],
    [
      'an open anyOf branch',
      closed({ t: { anyOf: [closed({}), { type: 'object' }] } }),
      '#/properties/t',
    ],
    [
      'an open $defs target used as a value',
      closed({ r: { $ref: '#/$defs/open' } }, { $defs: { open: { type: 'object' } } }),
      '#/properties/r',
    ],
    [
      'unevaluatedProperties false undone by additionalProperties true',
      { type: 'object', additionalProperties: true, unevaluatedProperties: false },
      '#',
    ],
  ])('an object that allows unknown properties: %s', (_, input, pointer) => {
    expect(problemsOf([withInput(input)])).toEqual([
      `search: input schema ${pointer}: accepts objects with properties it does not list; set "additionalProperties": false`,
    ]);
  });

  it.each([
    ['an untyped property', {}],
    ['a true schema', true],
  ])('a value that may be anything: %s', (_, any) => {
    expect(problemsOf([withInput(closed({ any }))])).toEqual([
      'search: input schema #/properties/any: accepts objects with properties it does not list; set "additionalProperties": false',
      'search: input schema #/properties/any: accepts arrays whose items it does not describe; set "items"',
    ]);
  });

  it('an array whose items are not described', () => {
    expect(problemsOf([withInput(closed({ l: { type: 'array' } }))])).toEqual([
      'search: input schema #/properties/l: accepts arrays whose items it does not describe; set "items"',
    ]);
  });

  it.each(['patternProperties', 'propertyNames'])(
    '%s, which loosens a closed object',
    (keyword) => {
      const loosened = {
        type: 'object',
        additionalProperties: false,
        [keyword]:
          keyword === 'propertyNames'
            ? { type: 'string', maxLength: 3 }
            : { '^x': { type: 'string' } },
      };
      expect(problemsOf([withInput(loosened)]).join('\n')).toContain(
        `"${keyword}" accepts property names`,
      );
    },
  );

  it.each([
    'tenant',
    'tenant_id',
    'tenantId',
    'Tenant-ID',
    'TENANT_ID',
    'user_id',
    'userId',
    'role',
    'roles',
    'subject_id',
    'principal_id',
    'org_id',
    'owner_id',
    'on_behalf_of',
    'api_key',
    'access_token',
  ])('the identity field %j', (name) => {
    expect(problemsOf([withInput(closed({ [name]: { type: 'string' } }))]).join('\n')).toContain(
      `"${name}" is an identity field`,
    );
  });

  it('identity fields at any depth, in required, and in dependentRequired', () => {
    const input = closed(
      {
        items: { type: 'array', items: closed({ userId: { type: 'string' } }) },
        a: { type: 'string' },
      },
      { dependentRequired: { a: ['roles'] } },
    );
    const problems = problemsOf([withInput(input)]);
    expect(problems.join('\n')).toContain(
      '#/properties/items/items: "userId" is an identity field',
    );
    expect(problems.join('\n')).toContain('#: "roles" is an identity field');
  });

  it('allows business-object names that merely resemble identity fields', () => {
    const input = closed({
      customer_id: { type: 'string' },
      account_id: { type: 'string' },
      owner: { type: 'string' },
      username: { type: 'string' },
      permissions: { type: 'string' },
    });
    expect(() => createToolRegistry([withInput(input)])).not.toThrow();
  });

  it.each(['__proto__', 'constructor', 'prototype'])('%j as a property name', (name) => {
    const input = JSON.parse(
      `{"type":"object","properties":{"${name}":{"type":"string"}},"additionalProperties":false}`,
    ) as JsonSchema;
    expect(problemsOf([withInput(input)]).join('\n')).toContain(
      `"${name}" is a reserved property name`,
    );
  });

  it('schemas that reach outside themselves: $id, anchors, dynamic and remote references', () => {
    const input = closed(
      {
        a: { $ref: 'https://example.com/schema.json' },
        b: { $dynamicRef: '#node' },
      },
      { $id: 'https://example.com/tool', $defs: { n: { $anchor: 'n', type: 'string' } } },
    );
    const problems = problemsOf([withInput(input)]).join('\n');
    for (const keyword of ['$id', '$anchor', '$dynamicRef']) {
      expect(problems).toContain(`"${keyword}" is not allowed`);
    }
    expect(problems).toContain('only local references');
  });

  it('a reference into a value that is not a subschema, where an identity field would hide', () => {
    const tenant = closed({ tenant_id: { type: 'string' } });
    const viaExamples = closed({ x: { $ref: '#/examples/0' } }, { examples: [tenant] });
    const viaDefault = closed({
      x: { $ref: '#/properties/y/default' },
      y: closed({}, { default: tenant }),
    });
    for (const input of [viaExamples, viaDefault]) {
      expect(problemsOf([withInput(input)]).join('\n')).toMatch(
        /"\$ref" must point at a subschema/,
      );
    }
    const viaDefs = closed({ x: { $ref: '#/%24defs/a~1b' } }, { $defs: { 'a/b': closed({}) } });
    expect(() => createToolRegistry([withInput(viaDefs)])).not.toThrow();
  });

  it('a local reference that does not resolve', () => {
    const problems = problemsOf([withInput(closed({ a: { $ref: '#/$defs/missing' } }))]);
    expect(problems.join('\n')).toContain('"$ref" does not resolve');
  });

  it('what strict mode refuses: unknown keywords, untyped type-specific keywords, unknown formats', () => {
    for (const property of [
      { type: 'string', optional: true },
      { minimum: 1 },
      { type: 'string', format: 'no-such-format' },
      { type: 'string', format: 'date', formatMinimum: '2020-01-01' },
    ]) {
      expect(problemsOf([withInput(closed({ p: property }))]).join('\n')).toMatch(
        /does not compile/,
      );
    }
  });

  it('an output schema that does not compile', () => {
    const problems = problemsOf([tool({ result: { outputSchema: { type: 'object', nope: 1 } } })]);
    expect(problems).toEqual([
      expect.stringMatching(/^search: output schema does not compile: .*unknown keyword/),
    ]);
  });

  it('a destructive tool without a card builder', () => {
    expect(problemsOf([tool({ sideEffect: 'destructive' })])).toEqual([
      'search: a confirmation can be needed, so a card builder is required to show the approver',
    ]);
  });

  it('a write tool that may ask for confirmation without a card builder, but not one that never asks', () => {
    expect(
      problemsOf([tool({ sideEffect: 'write', requiresConfirmation: () => true })]),
    ).toHaveLength(1);
    expect(() => createToolRegistry([tool({ sideEffect: 'write' })])).not.toThrow();
    const card = () => ({ action: 'a', target: 't', effect: 'e', preview: null });
    expect(() => createToolRegistry([tool({ sideEffect: 'destructive', card })])).not.toThrow();
  });
});
