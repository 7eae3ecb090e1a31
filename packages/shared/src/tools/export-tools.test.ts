import { describe, expect, it } from 'vitest';
import type { ToolSpec } from '../tool-spec.js';
import { createToolRegistry } from './create-tool-registry.js';
import { exportTools } from './export-tools.js';
import { isOpenAiStrictSchema } from './openai-strict.js';

const allRequired = {
  type: 'object',
  properties: {
    query: { type: 'string', description: 'What to look for.' },
    label: { type: ['string', 'null'] },
  },
  required: ['query', 'label'],
  additionalProperties: false,
};

const withOptional = {
  type: 'object',
  properties: { id: { type: 'string' }, reason: { type: 'string' } },
  required: ['id'],
  additionalProperties: false,
};

const card = () => ({ action: 'delete', target: 't', effect: 'e', preview: null });

const specs: ToolSpec[] = [
  {
    name: 'search',
    description: 'Searches.',
    version: '1',
    sideEffect: 'read',
    input: allRequired,
  },
  { name: 'tag', description: 'Tags.', version: '1', sideEffect: 'write', input: withOptional },
  {
    name: 'purge',
    description: 'Purges.',
    version: '1',
    sideEffect: 'destructive',
    input: withOptional,
    card,
  },
];

const registry = createToolRegistry(specs);

describe('exportTools', () => {
  it('writes OpenAI Chat Completions function tools, strict only when the schema fits strict mode', () => {
    expect(exportTools(registry, 'openai')).toEqual([
      {
        type: 'function',
        function: {
          name: 'search',
          description: 'Searches.',
          parameters: allRequired,
          strict: true,
        },
      },
      {
        type: 'function',
        function: { name: 'tag', description: 'Tags.', parameters: withOptional, strict: false },
      },
      {
        type: 'function',
        function: {
          name: 'purge',
          description: 'Purges.',
          parameters: withOptional,
          strict: false,
        },
      },
    ]);
  });

  it('writes Anthropic tools with input_schema', () => {
    expect(exportTools(registry, 'anthropic')[0]).toEqual({
      name: 'search',
      description: 'Searches.',
      input_schema: allRequired,
    });
  });

  it('writes MCP tools/list items with hints from the side-effect class', () => {
    expect(exportTools(registry, 'mcp')).toEqual([
      expect.objectContaining({
        name: 'search',
        inputSchema: allRequired,
        annotations: { readOnlyHint: true, destructiveHint: false },
      }),
      expect.objectContaining({ annotations: { readOnlyHint: false, destructiveHint: false } }),
      expect.objectContaining({ annotations: { readOnlyHint: false, destructiveHint: true } }),
    ]);
  });

  it('lists only the tools the predicate allows, in definition order', () => {
    const names = exportTools(registry, 'anthropic', (tool) => tool.spec.sideEffect !== 'read').map(
      (item) => (item as { name: string }).name,
    );
    expect(names).toEqual(['tag', 'purge']);
  });

  it('hands out copies, so a client library that edits them cannot change the compiled schema', () => {
    const [item] = exportTools(registry, 'anthropic') as {
      input_schema: Record<string, unknown>;
    }[];
    item!.input_schema.additionalProperties = true;
    expect(registry.get('search')?.spec.input.additionalProperties).toBe(false);
  });
});

describe('isOpenAiStrictSchema', () => {
  const obj = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
    type: 'object',
    properties,
    required: Object.keys(properties),
    additionalProperties: false,
    ...extra,
  });

  it('accepts closed objects with every property required, nested, with anyOf and local refs', () => {
    const schema = obj(
      {
        when: { type: 'string', format: 'date' },
        n: { type: 'integer', minimum: 0 },
        pick: { anyOf: [{ type: 'string' }, { type: 'null' }] },
        inner: obj({ tags: { type: 'array', items: { type: 'string' }, maxItems: 3 } }),
        node: { $ref: '#/$defs/node' },
      },
      { $defs: { node: obj({ name: { type: 'string' } }) } },
    );
    expect(isOpenAiStrictSchema(schema)).toBe(true);
  });

  it.each([
    ['an optional property', { ...obj({ a: { type: 'string' } }), required: [] }],
    ['an unsupported keyword', obj({ a: { type: 'string', minLength: 1 } })],
    ['an unsupported format', obj({ a: { type: 'string', format: 'uri' } })],
    ['allOf', obj({ a: { allOf: [{ type: 'string' }] } })],
    ['a default', obj({ a: { type: 'string', default: 'x' } })],
    ['an untyped property', obj({ a: { description: 'anything' } })],
    ['a root that is not an object', { type: 'array', items: { type: 'string' } }],
    ['anyOf at the root', { ...obj({}), anyOf: [obj({})] }],
    ['a nested optional property', obj({ o: { ...obj({ a: { type: 'string' } }), required: [] } })],
  ])('refuses %s', (_, schema) => {
    expect(isOpenAiStrictSchema(schema)).toBe(false);
  });

  it('refuses nesting deeper than OpenAI allows', () => {
    let schema: Record<string, unknown> = obj({ leaf: { type: 'string' } });
    for (let i = 0; i < 11; i++) schema = obj({ inner: schema });
    expect(isOpenAiStrictSchema(schema)).toBe(false);
  });
});
