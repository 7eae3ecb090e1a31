import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FORBIDDEN_KEYS } from './json-reader.js';
import { parseJsonBounded } from './parse-json-bounded.js';

/** Ceilings wide enough that generated values never hit them, so only the grammar speaks. */
const WIDE = { maxBytes: 1 << 20, maxDepth: 64 };

const REFUSAL_CODES = [
  'invalid_json',
  'truncated',
  'too_large',
  'too_deep',
  'duplicate_key',
  'forbidden_key',
  'unrepresentable_number',
];

/** JSON values whose objects never use a forbidden key (those are refused by design). */
const jsonValue = (stringUnit: 'grapheme' | 'binary') =>
  fc
    .jsonValue({ maxDepth: 6, stringUnit })
    .filter((v) => !JSON.stringify(v).match(/"(__proto__|constructor|prototype)":/));

const jsonObjectText = fc
  .dictionary(fc.string(), jsonValue('grapheme'), { minKeys: 1, maxKeys: 5 })
  .filter((o) => Object.keys(o).every((k) => !FORBIDDEN_KEYS.has(k)))
  .map((o) => JSON.stringify(o));

/** A decision that is a well-formed refusal or acceptance: never an exception, never a hybrid. */
function wellFormed(text: string): boolean {
  const d = parseJsonBounded(text, WIDE);
  return d.ok || REFUSAL_CODES.includes(d.code);
}

describe('parseJsonBounded (properties)', () => {
  it('never throws on arbitrary strings, and answers with a known code', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 200 }), wellFormed), {
      numRuns: 3000,
    });
  });

  it('never throws on truncations, byte flips and insertions of valid JSON', () => {
    const mutated = fc
      .tuple(jsonValue('binary'), fc.nat(), fc.integer({ min: 0, max: 0xffff }), fc.nat(2))
      .map(([v, at, unit, kind]) => {
        const text = JSON.stringify(v);
        const i = at % (text.length + 1);
        const c = String.fromCharCode(unit);
        if (kind === 0) return text.slice(0, i);
        if (kind === 1) return text.slice(0, i) + c + text.slice(i + 1);
        return text.slice(0, i) + c + text.slice(i);
      });
    fc.assert(fc.property(mutated, wellFormed), { numRuns: 3000 });
  });

  it('accepts every JSON value within the limits and agrees with JSON.parse', () => {
    fc.assert(
      fc.property(jsonValue('binary'), (v) => {
        const text = JSON.stringify(v);
        expect(parseJsonBounded(text, WIDE)).toEqual({
          ok: true,
          value: JSON.parse(text) as unknown,
        });
      }),
      { numRuns: 2000 },
    );
  });

  it('accepts pretty-printed JSON too', () => {
    fc.assert(
      fc.property(jsonValue('grapheme'), (v) => {
        const text = JSON.stringify(v, null, 2);
        expect(parseJsonBounded(text, WIDE)).toEqual({
          ok: true,
          value: JSON.parse(text) as unknown,
        });
      }),
      { numRuns: 500 },
    );
  });

  it('reads every finite double as JSON.stringify writes it, whatever its magnitude', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (n) => {
        expect(parseJsonBounded(`[${JSON.stringify(n)}]`, WIDE)).toEqual({
          ok: true,
          value: [JSON.parse(JSON.stringify(n)) as number],
        });
      }),
      { numRuns: 2000 },
    );
  });

  it('answers an integer beyond 2^53 alike however it is spelled, reading it only when the double sent on has its digits', () => {
    const spellings = (n: bigint) => [`${n}`, `${n}.0`, `${n}e0`, `${n}0e-1`, `-${n}.000`];
    fc.assert(
      fc.property(fc.bigInt({ min: 2n ** 53n + 1n, max: 10n ** 20n }), (n) => {
        // Well below 1e21 String writes plain digits, so BigInt can check it independently.
        const kept = BigInt(String(Number(n))) === n;
        for (const text of spellings(n)) {
          const d = parseJsonBounded(text, WIDE);
          expect(d.ok ? 'ok' : d.code, text).toBe(kept ? 'ok' : 'unrepresentable_number');
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('refuses every strict, non-empty prefix of a valid JSON object text as truncated', () => {
    fc.assert(
      fc.property(jsonObjectText, fc.nat(), (text, at) => {
        const prefix = text.slice(0, 1 + (at % (text.length - 1)));
        const d = parseJsonBounded(prefix, WIDE);
        expect(d.ok ? 'ok' : d.code).toBe('truncated');
      }),
      { numRuns: 3000 },
    );
  });

  it('refuses every strict prefix of one hand-written object, character by character', () => {
    const text = '{"q":"a\\"b\\u00e9\\ud83d\\ude00","n":-1.5e-3,"l":[true,false,null],"o":{}}';
    for (let end = 1; end < text.length; end++) {
      const d = parseJsonBounded(text.slice(0, end), WIDE);
      expect(d.ok ? 'ok' : d.code, text.slice(0, end)).toBe('truncated');
    }
  });
});
