import { describe, expect, it } from 'vitest';
import type { NormalizedCall } from '../types.js';
import { DEFAULT_PARSE_LIMITS } from './parse-limits.js';
import { parseCall } from './parse-call.js';

const L = DEFAULT_PARSE_LIMITS;

const textCall = (argumentsText: string, completion: NormalizedCall['completion'] = 'complete') =>
  ({ callId: 'c1', tool: 'search', argumentsText, completion }) as const;

const objectCall = (argumentsObject: unknown) =>
  ({ callId: 'c1', tool: 'search', argumentsObject, completion: 'unknown' }) as const;

const codeOf = (call: NormalizedCall, limits = L): string => {
  const d = parseCall(call, limits);
  return d.ok ? 'ok' : d.code;
};

/** [1, <hole>, 3], written without a sparse literal. */
const holey = (): unknown[] => {
  const array: unknown[] = [1];
  array[2] = 3;
  return array;
};

const deep = (depth: number): unknown => (depth === 1 ? {} : { a: deep(depth - 1) });

describe('parseCall', () => {
  it('refuses a call whose finish word says truncated, whatever the text looks like', () => {
    for (const text of ['{"q":1}', '{"q":', 'not json', '```json\n{}\n```']) {
      expect(parseCall(textCall(text, 'truncated'), L)).toMatchObject({
        code: 'truncated',
        disposition: 'retry',
      });
    }
  });

  describe('the Markdown fence, the only repair', () => {
    it.each([
      ['```json\n{"q":1}\n```', 'a json fence'],
      ['```\n{"q":1}\n```', 'a bare fence'],
      ['```JSON\n{"q":1}\n```', 'an upper-case info string'],
      ['\n  ```json  \r\n{"q":1}\r\n```  \n', 'whitespace and CRLF around it'],
      ['```json\n{"q":1}```', 'the closing fence on the last line'],
    ])('strips %j (%s) and marks the call repaired', (text) => {
      expect(parseCall(textCall(text), L)).toEqual({
        ok: true,
        value: { callId: 'c1', tool: 'search', args: { q: 1 }, repaired: 'fence' },
      });
    });

    it.each([
      ['```python\n{"q":1}\n```', 'another info string'],
      ['Here it is:\n```json\n{"q":1}\n```', 'prose before the fence'],
      ['```json\n{"q":1}\n```\nDone.', 'prose after the fence'],
      ['<tool_call>{"q":1}</tool_call>', 'tags'],
      ['~~~json\n{"q":1}\n~~~', 'a tilde fence'],
      ['```json\n```json\n{"q":1}\n```\n```', 'two fences'],
      ['```json {"q":1}```', 'no line break after the opening'],
    ])('does not strip %j (%s): invalid_json', (text) => {
      expect(codeOf(textCall(text))).toBe('invalid_json');
    });

    it('parses the fenced body strictly: a body that ends early is truncated, fence closed or not', () => {
      expect(codeOf(textCall('```json\n{"q":\n```'))).toBe('truncated');
      expect(codeOf(textCall('```json\n{"q":'))).toBe('truncated');
      expect(codeOf(textCall('```json\n{"q":1,}\n```'))).toBe('invalid_json');
    });

    it('treats a text cut inside the opening fence line as truncated', () => {
      expect(['`', '``', '```', '```js', '```json'].map((t) => codeOf(textCall(t)))).toEqual(
        Array(5).fill('truncated'),
      );
    });

    it('points at the character in the whole text, fence included', () => {
      const d = parseCall(textCall("```json\n{'q':1}\n```"), L);
      expect(d.ok ? '' : d.publicMessage).toContain('character 10');
    });

    it('applies the byte ceiling to the text as given, fence included', () => {
      const limits = { maxBytes: 20, maxDepth: 32 };
      expect(codeOf(textCall('{"q":"0123456789ab"}'), limits)).toBe('ok');
      expect(codeOf(textCall('```\n{"q":"0123456789ab"}\n```'), limits)).toBe('too_large');
    });

    it('carries the repair a normalizer already made', () => {
      const call = { ...objectCall({ q: 1 }), repaired: 'fence' } as const;
      expect(parseCall(call, L)).toMatchObject({ ok: true, value: { repaired: 'fence' } });
    });
  });

  describe('not_an_object', () => {
    it.each([
      ['[1,2]', 'an array'],
      ['"{\\"q\\":1}"', 'a string'],
      ['42', 'a number'],
      ['null', 'a null'],
      ['true', 'a boolean'],
    ])('refuses %j as not_an_object, saying it is %s', (text, what) => {
      const d = parseCall(textCall(text), L);
      expect(d).toMatchObject({ code: 'not_an_object', disposition: 'repair' });
      expect(d.ok ? '' : d.publicMessage).toContain(`not ${what}`);
    });

    it('tells the model not to encode the object as a string, and does not unwrap it', () => {
      const d = parseCall(textCall('"{\\"q\\":1}"'), L);
      expect(d.ok ? '' : d.publicMessage).toMatch(/not the object encoded as a string/);
    });
  });

  describe('arguments that arrive as an object', () => {
    it('accepts a JSON object and returns a copy the caller cannot change afterwards', () => {
      const original = { q: 'x', list: [1, { a: null }] };
      const d = parseCall(objectCall(original), L);
      expect(d).toEqual({ ok: true, value: { callId: 'c1', tool: 'search', args: original } });
      original.list.push(2);
      expect(d.ok && d.value.args['list']).toEqual([1, { a: null }]);
    });

    it('holds the depth ceiling exactly, as for text', () => {
      expect(codeOf(objectCall(deep(32)))).toBe('ok');
      expect(codeOf(objectCall(deep(33)))).toBe('too_deep');
    });

    it('refuses a cycle as too deep instead of looping', () => {
      const cyclic: Record<string, unknown> = {};
      cyclic['self'] = cyclic;
      expect(codeOf(objectCall(cyclic))).toBe('too_deep');
    });

    it('holds the byte ceiling on the compact serialization', () => {
      const limits = { maxBytes: 20, maxDepth: 32 };
      expect(codeOf(objectCall({ q: '0123456789ab' }), limits)).toBe('ok');
      expect(codeOf(objectCall({ q: '0123456789abc' }), limits)).toBe('too_large');
      expect(codeOf(objectCall({ q: 'x'.repeat(10_000_000) }), limits)).toBe('too_large');
    });

    it('refuses an own __proto__ key (as JSON.parse creates one) at any depth', () => {
      const input: unknown = JSON.parse('{"a":[{"__proto__":{"polluted":1}}]}');
      expect(parseCall(objectCall(input), L)).toMatchObject({
        code: 'forbidden_key',
        disposition: 'deny',
      });
      expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    });

    it.each([
      ['undefined', { a: undefined }],
      ['a function', { a: () => 1 }],
      ['a bigint', { a: 1n }],
      ['a symbol', { a: Symbol('s') }],
      ['a Date', { a: new Date(0) }],
      ['a Map', { a: new Map() }],
      ['an array hole', { a: holey() }],
      ['a lone surrogate', { a: '\ud800' }],
      ['no arguments at all', undefined],
    ])('refuses %s as invalid_json', (_, value) => {
      expect(codeOf(objectCall(value))).toBe('invalid_json');
    });

    it('refuses NaN and Infinity as unrepresentable numbers', () => {
      expect(codeOf(objectCall({ a: Number.NaN }))).toBe('unrepresentable_number');
      expect(codeOf(objectCall({ a: Infinity }))).toBe('unrepresentable_number');
    });

    it('accepts an object without a prototype', () => {
      const bare = Object.assign(Object.create(null) as object, { q: 1 });
      expect(parseCall(objectCall(bare), L)).toMatchObject({ ok: true, value: { args: { q: 1 } } });
    });

    it('answers a throwing getter with a refusal instead of a throw', () => {
      const hostile = {
        get q(): never {
          throw new Error('boom');
        },
      };
      expect(parseCall(objectCall(hostile), L)).toMatchObject({ ok: false });
    });
  });

  it('refuses a call that carries both argument forms', () => {
    const call = { ...textCall('{}'), argumentsObject: {} };
    expect(codeOf(call)).toBe('invalid_proposal');
  });
});
