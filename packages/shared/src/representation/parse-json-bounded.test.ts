import { describe, expect, it } from 'vitest';
import { DEFAULT_PARSE_LIMITS, type ParseLimits } from './parse-limits.js';
import { parseJsonBounded } from './parse-json-bounded.js';

const parse = (text: string, limits: ParseLimits = DEFAULT_PARSE_LIMITS) =>
  parseJsonBounded(text, limits);

/** The refusal code, or 'ok'. */
const codeOf = (text: string, limits?: ParseLimits): string => {
  const d = parse(text, limits);
  return d.ok ? 'ok' : d.code;
};

const nested = (depth: number): string => '['.repeat(depth) + ']'.repeat(depth);

describe('parseJsonBounded', () => {
  it('accepts an arguments object and returns the same value JSON.parse does', () => {
    const text = '{"query":"x","max_results":3,"f":{"a":[true,false,null,-1.5e3]}}';
    expect(parse(text)).toEqual({ ok: true, value: JSON.parse(text) as unknown });
  });

  it('accepts every JSON value at the top, not only objects', () => {
    expect(['1', '"s"', 'true', 'null', '[]', ' {} '].map((t) => codeOf(t))).toEqual(
      Array(6).fill('ok'),
    );
  });

  describe('too_large', () => {
    const limits = { maxBytes: 10, maxDepth: 32 };

    it('accepts a text of exactly maxBytes UTF-8 bytes', () => {
      expect(codeOf('["123456"]', limits)).toBe('ok');
    });

    it('refuses a text one byte over, with disposition deny', () => {
      const d = parse('["1234567"]', limits);
      expect(d).toMatchObject({ ok: false, code: 'too_large', disposition: 'deny' });
    });

    it('counts UTF-8 bytes, not characters', () => {
      // 8 characters, but é takes two bytes and 😀 four: 1+1+2+4+1+1 = 10 and 12 bytes.
      expect(codeOf('["é😀"]', limits)).toBe('ok');
      expect(codeOf('["éé😀"]', limits)).toBe('too_large');
    });

    it('refuses a huge text before reading it', () => {
      const d = parse(`[${'1,'.repeat(5_000_000)}1]`);
      expect(d).toMatchObject({ ok: false, code: 'too_large' });
    });

    it('refuses everything when the ceiling is not a number (fails closed)', () => {
      expect(codeOf('{}', { maxBytes: Number.NaN, maxDepth: 32 })).toBe('too_large');
    });
  });

  describe('too_deep', () => {
    const limits = { maxBytes: 16_384, maxDepth: 4 };

    it('accepts nesting exactly at maxDepth, the outermost container being depth 1', () => {
      expect(codeOf(nested(4), limits)).toBe('ok');
      expect(codeOf('{"a":{"b":{"c":[1]}}}', limits)).toBe('ok');
    });

    it('refuses nesting one level over, with disposition deny', () => {
      expect(parse(nested(5), limits)).toMatchObject({ code: 'too_deep', disposition: 'deny' });
      expect(codeOf('{"a":{"b":{"c":[[1]]}}}', limits)).toBe('too_deep');
    });

    it('holds the default ceiling of 32 exactly', () => {
      expect(codeOf(nested(32))).toBe('ok');
      expect(codeOf(nested(33))).toBe('too_deep');
    });

    it('refuses deep nesting even when the text also ends early', () => {
      expect(codeOf('['.repeat(10_000))).toBe('too_deep');
    });

    it('does not count scalars as a level', () => {
      expect(codeOf('1', { maxBytes: 10, maxDepth: 0 })).toBe('ok');
      expect(codeOf('[]', { maxBytes: 10, maxDepth: 0 })).toBe('too_deep');
    });
  });

  describe('duplicate_key', () => {
    it('refuses a repeated key at the top, with disposition repair', () => {
      expect(parse('{"a":1,"a":1}')).toMatchObject({
        code: 'duplicate_key',
        disposition: 'repair',
      });
    });

    it('refuses a repeated key deep inside', () => {
      expect(codeOf('{"a":[{"b":{"c":1,"d":2,"c":3}}]}')).toBe('duplicate_key');
    });

    it('compares decoded keys, so an escaped spelling is the same key', () => {
      expect(codeOf('{"ab":1,"a\\u0062":2}')).toBe('duplicate_key');
      expect(codeOf('{"\\/":1,"/":2}')).toBe('duplicate_key');
    });

    it('allows the same key in sibling objects', () => {
      expect(codeOf('[{"a":1},{"a":2}]')).toBe('ok');
    });

    it('treats inherited names such as toString as ordinary keys', () => {
      expect(parse('{"toString":1,"hasOwnProperty":2,"valueOf":3}')).toEqual({
        ok: true,
        value: { toString: 1, hasOwnProperty: 2, valueOf: 3 },
      });
      expect(codeOf('{"toString":1,"toString":2}')).toBe('duplicate_key');
    });

    it('names the field in the public message', () => {
      const d = parse('{"city":"a","city":"b"}');
      expect(d.ok ? '' : d.publicMessage).toContain('"city"');
    });
  });

  describe('forbidden_key', () => {
    it.each(['__proto__', 'constructor', 'prototype'])('refuses %s at the top', (key) => {
      expect(parse(`{"${key}":{"polluted":true}}`)).toMatchObject({
        code: 'forbidden_key',
        disposition: 'deny',
      });
    });

    it('refuses it at any depth and however it is spelled', () => {
      expect(codeOf('{"a":[{"b":{"__proto__":{}}}]}')).toBe('forbidden_key');
      expect(codeOf('{"\\u005f_proto__":{}}')).toBe('forbidden_key');
    });

    it('leaves Object.prototype untouched (JSON.parse would create an own __proto__ property)', () => {
      const text = '{"a":{"__proto__":{"polluted":"yes"}}}';
      const native = JSON.parse(text) as { a: object };
      expect(Object.hasOwn(native.a, '__proto__')).toBe(true);
      expect(codeOf(text)).toBe('forbidden_key');
      expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    });

    it('returns objects whose prototype is Object.prototype and whose keys are own data properties', () => {
      const d = parse('{"a":{"b":1}}');
      const value = (d.ok ? d.value : undefined) as { a: object };
      expect(Object.getPrototypeOf(value.a)).toBe(Object.prototype);
      expect(Object.getOwnPropertyDescriptor(value, 'a')).toMatchObject({ writable: true });
    });

    it('does not quote more of the text than the key name', () => {
      const d = parse('{"__proto__":"sk-live-secret"}');
      expect(d.ok ? '' : d.publicMessage + d.internalDetail).not.toContain('sk-live-secret');
    });
  });

  describe('truncated', () => {
    it.each([
      ['{', 'an object just opened'],
      ['{"a"', 'a key without its colon'],
      ['{"a":', 'a key without its value'],
      ['{"a":"hel', 'a string'],
      ['{"a":"\\', 'an escape'],
      ['{"a":"\\u00', 'a \\u escape'],
      ['{"a":"\\ud83d', 'a surrogate pair cut in half'],
      ['{"a":12', 'a number that could go on'],
      ['{"a":-', 'a minus sign'],
      ['{"a":1.', 'a decimal point'],
      ['{"a":1e+', 'an exponent'],
      ['{"a":tr', 'a literal'],
      ['{"a":[1,', 'an array after a comma'],
      ['-', 'a lone minus at the top'],
      ['"abc', 'a string at the top'],
    ])('refuses %j (%s) as truncated, disposition retry', (text) => {
      expect(parse(text)).toMatchObject({ code: 'truncated', disposition: 'retry' });
    });

    it('refuses text that breaks before it ends as invalid, not truncated', () => {
      expect(codeOf('{"a":1,}')).toBe('invalid_json');
      expect(codeOf('{"a":1 "b":2')).toBe('invalid_json');
    });

    it('reports the first problem in reading order', () => {
      expect(codeOf('{"a":1,"a":2,"b":[')).toBe('duplicate_key');
      expect(codeOf('{"a":[1,2,x')).toBe('invalid_json');
    });
  });

  describe('invalid_json', () => {
    it.each([
      ['', 'empty text'],
      ['   \n', 'whitespace only'],
      ["{'a':1}", 'single quotes'],
      ['{a:1}', 'an unquoted key'],
      ['{"a":1,}', 'a trailing comma'],
      ['[1,]', 'a trailing comma in an array'],
      ['{"a":True}', 'a Python literal'],
      ['{"a":None}', 'a Python literal'],
      ['{"a":NaN}', 'NaN'],
      ['{"a":01}', 'a leading zero'],
      ['{"a":.5}', 'a bare decimal point'],
      ['{"a":+1}', 'a plus sign'],
      ['{"a":0x1F}', 'hex'],
      ['{"a":1} x', 'trailing text'],
      ['{"a":1}{"b":2}', 'two values'],
      ['{"a":"\t"}', 'a raw tab in a string'],
      ['{"a":"\\x41"}', 'an unknown escape'],
      ['{"a":"\\u12G4"}', 'a bad hex digit'],
      ['{"a":1 // c\n}', 'a comment'],
      ['\uFEFF{}', 'a byte order mark'],
      ['{"a":\u00A01}', 'non-JSON whitespace'],
    ])('refuses %j (%s), disposition repair', (text) => {
      expect(parse(text)).toMatchObject({ code: 'invalid_json', disposition: 'repair' });
    });

    it('tells the model where and what, without echoing the text', () => {
      const d = parse("{'query': 'sk-live-secret-and-much-more-text'}");
      expect(d.ok).toBe(false);
      if (d.ok) return;
      expect(d.publicMessage).toMatch(/single quote.*character 2/);
      expect(d.publicMessage + d.internalDetail).not.toContain('sk-live');
    });

    it('says plainly when the arguments are empty', () => {
      const d = parse('');
      expect(d.ok ? '' : d.publicMessage).toMatch(/empty/);
    });
  });

  describe('strings and escapes', () => {
    it('decodes every escape as JSON.parse does', () => {
      const text = String.raw`["\"\\\/\b\f\n\r\t\u0041\u00e9\u20AC\ud83d\ude00"]`;
      expect(parse(text)).toEqual({ ok: true, value: JSON.parse(text) as unknown });
    });

    it('keeps raw non-ASCII, U+2028 and DEL as they are', () => {
      const text = '["é€😀\u2028\u007f"]';
      expect(parse(text)).toEqual({ ok: true, value: ['é€😀\u2028\u007f'] });
    });

    it('finds the end of a string after escaped quotes and backslashes', () => {
      const text = String.raw`{"a":"x\"y\\","b":"\\\"","c":"\\\\"}`;
      expect(parse(text)).toEqual({ ok: true, value: JSON.parse(text) as unknown });
    });

    it('pairs a raw high surrogate with an escaped low one, as UTF-16 does', () => {
      expect(parse('["\ud83d\\ude00"]')).toEqual({ ok: true, value: ['😀'] });
    });

    it.each([
      ['["\\ud800"]', 'a lone high surrogate escape'],
      ['["\\udc00"]', 'a lone low surrogate escape'],
      ['["\\ude00\\ud83d"]', 'an inverted pair'],
      ['["\\ud83d\\u0041"]', 'a high surrogate followed by a letter'],
      ['["\ud800"]', 'a raw lone surrogate'],
      ['{"\\ud800":1}', 'a lone surrogate in a key'],
    ])('refuses %j (%s): UTF-8 cannot carry it', (text) => {
      expect(codeOf(text)).toBe('invalid_json');
    });

    it('refuses a raw control character even where it is the only special one', () => {
      expect(codeOf('["abc\u0000def"]')).toBe('invalid_json');
      expect(codeOf('["abc\u001f"]')).toBe('invalid_json');
    });
  });

  describe('numbers', () => {
    it.each([
      ['0', 0],
      ['-0', -0],
      ['-12', -12],
      ['1.5', 1.5],
      ['1E+2', 100],
      ['1e-2', 0.01],
      ['123456789012345', 123456789012345],
      ['9007199254740991', 9007199254740991],
      ['-9007199254740991', -9007199254740991],
      ['1e308', 1e308],
      ['1.7976931348623157e308', Number.MAX_VALUE],
      ['5e-324', 5e-324],
      ['123456789012345680000', 123456789012345680000],
      ['0.1', 0.1],
      ['0e999', 0],
    ])('reads %s as JSON.parse does', (text, value) => {
      expect(parse(text)).toEqual({ ok: true, value });
      expect(Object.is((parse(`[${text}]`) as { value: number[] }).value[0], value)).toBe(true);
    });

    it.each([
      ['9007199254740993', 'an integer that would lose its last digit'],
      ['[12345678901234567890]', 'a 20-digit id'],
      ['[-9007199254740993]', 'a negative one'],
      ['[1e400]', 'overflow'],
      ['[-1e400]', 'negative overflow'],
      ['[1e-400]', 'a non-zero number that underflows to zero'],
    ])('refuses %s (%s) as unrepresentable_number, disposition repair', (text) => {
      expect(parse(text)).toMatchObject({ code: 'unrepresentable_number', disposition: 'repair' });
    });

    it.each([
      ['9007199254740993.0', 'a fraction of zero'],
      ['9007199254740993e0', 'an exponent of zero'],
      ['90071992547409930e-1', 'a negative exponent'],
      ['[9.007199254740993E15]', 'a fraction scaled up by the exponent'],
      ['[-9007199254740993.00]', 'a negative one with trailing zeros'],
      ['[9007199254740993.5]', 'a fraction beyond 2^53, where every double is an integer'],
      ['[1.2345678901234567891e30]', 'more digits than a double keeps'],
    ])('refuses %s (%s): beyond 2^53 the spelling does not save lost digits', (text) => {
      expect(parse(text)).toMatchObject({ code: 'unrepresentable_number', disposition: 'repair' });
    });

    it.each([
      ['9007199254740992.0', 2 ** 53],
      ['9007199254740994e0', 9007199254740994],
      ['1.8014398509481984e16', 2 ** 54],
      ['1e300', 1e300],
      ['-1.5e300', -1.5e300],
      ['6.02214076e23', 6.02214076e23],
      ['1E22', 1e22],
      ['10000000000000000000000', 1e22],
      ['1.0e+28', 1e28],
      ['123.456e78', 123.456e78],
      ['1.5e3', 1500],
      ['0.30000000000000000001', 0.3],
    ])('accepts %s: no digit the model wrote is lost', (text, value) => {
      expect(parse(text)).toEqual({ ok: true, value });
      expect(parse(`[${text}]`)).toEqual({ ok: true, value: [value] });
    });
  });
});
