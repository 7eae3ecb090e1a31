import { describe, expect, it } from 'vitest';
import { checkSchema, type CheckedCall } from './check-schema.js';
import { checkSemantics } from './check-semantics.js';
import { createToolRegistry } from './create-tool-registry.js';
import { defineTool } from './define-tool.js';

const search = defineTool<{ query: string; max_results?: number }>({
  name: 'search',
  description: 'Searches the knowledge base.',
  version: '2',
  sideEffect: 'read',
  input: {
    type: 'object',
    properties: { query: { type: 'string' }, max_results: { type: 'integer' } },
    required: ['query'],
    additionalProperties: false,
  },
  semantics: (args) => {
    if (args.query.trim() === '')
      return { code: 'empty_value', message: 'Argument `query` is blank.' };
    if (args.max_results !== undefined && args.max_results > 20) {
      return { code: 'out_of_range', message: 'Argument `max_results` must be at most 20.' };
    }
    return undefined;
  },
});

const ping = defineTool({
  name: 'ping',
  description: 'Checks that the service answers.',
  version: '1',
  sideEffect: 'read',
  input: { type: 'object', properties: {}, additionalProperties: false },
});

const registry = createToolRegistry([search, ping]);

function checked(tool: string, args: Record<string, unknown>): CheckedCall {
  const decision = checkSchema({ callId: 'call_9', tool, args }, registry);
  if (!decision.ok) expect.fail(decision.publicMessage);
  return decision.value;
}

describe('checkSemantics', () => {
  it('accepts what the tool check finds nothing wrong with, unchanged', () => {
    const call = checked('search', { query: 'invoices', max_results: 5 });
    expect(checkSemantics(call)).toEqual({ ok: true, value: call });
  });

  it('accepts every call of a tool that declares no check', () => {
    const call = checked('ping', {});
    expect(checkSemantics(call)).toEqual({ ok: true, value: call });
  });

  it('refuses with the code and public message the tool check returns', () => {
    expect(checkSemantics(checked('search', { query: '   ' }))).toEqual({
      ok: false,
      stage: 'semantics',
      code: 'empty_value',
      disposition: 'repair',
      publicMessage: 'Argument `query` is blank.',
      internalDetail: 'tool search@2: empty_value',
    });
    expect(checkSemantics(checked('search', { query: 'x', max_results: 99 }))).toMatchObject({
      ok: false,
      code: 'out_of_range',
      publicMessage: 'Argument `max_results` must be at most 20.',
    });
  });
});
