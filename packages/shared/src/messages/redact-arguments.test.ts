import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  MAX_ID_CHARS,
  MORE_KEY,
  OBJECT_ID_PATTERN,
  REDACTION_LIMITS,
  redactArguments,
  type RedactedValue,
} from './redact-arguments.js';

const MARKER = /^\[redacted(?: key #\d+)?: [^\]]*\]$/;

/** Every string leaf of a redacted value. */
function leaves(v: RedactedValue): string[] {
  if (typeof v === 'string') return [v];
  if (v === null || typeof v !== 'object') return [];
  return (Array.isArray(v) ? v : Object.values(v)).flatMap((x: RedactedValue) => leaves(x));
}

const isId = (s: string) => s.length <= MAX_ID_CHARS && OBJECT_ID_PATTERN.test(s);

describe('redactArguments', () => {
  it('keeps keys, object ids, numbers, booleans and null; replaces other strings', () => {
    expect(
      redactArguments({
        payment_id: 'pay_11',
        amount_cents: 1200,
        notify: true,
        reason: null,
        note: 'refund because the customer said so',
      }),
    ).toEqual({
      payment_id: 'pay_11',
      amount_cents: 1200,
      notify: true,
      reason: null,
      note: '[redacted: 35 chars]',
    });
  });

  it('counts characters as code points', () => {
    expect(redactArguments({ s: '😀é' })).toEqual({ s: '[redacted: 2 chars]' });
  });

  it('redacts nested arrays and objects member by member', () => {
    expect(
      redactArguments({ lines: [{ sku: 'sku_9', text: 'hello' }, 'inv_1', 'free text', 3] }),
    ).toEqual({
      lines: [{ sku: 'sku_9', text: '[redacted: 5 chars]' }, 'inv_1', '[redacted: 9 chars]', 3],
    });
  });

  it('redacts strings that only nearly look like ids', () => {
    for (const s of [
      'Pay_11',
      'pay-11',
      'pay_',
      '_11',
      'pay_11!',
      'pay_1 1',
      `pay_${'a'.repeat(41)}`,
    ])
      expect(redactArguments({ s })).toEqual({ s: `[redacted: ${[...s].length} chars]` });
  });

  it('redacts an id-shaped string longer than MAX_ID_CHARS', () => {
    const long = `${'a'.repeat(MAX_ID_CHARS)}_1`;
    expect(OBJECT_ID_PATTERN.test(long)).toBe(true);
    expect(redactArguments({ long })).toEqual({ long: `[redacted: ${long.length} chars]` });
  });

  it('replaces values JSON cannot carry', () => {
    expect(
      redactArguments({ a: Number.NaN, b: Infinity, c: undefined, d: 10n, e: () => 1 }),
    ).toEqual({
      a: '[redacted: not JSON]',
      b: '[redacted: not JSON]',
      c: '[redacted: not JSON]',
      d: '[redacted: not JSON]',
      e: '[redacted: not JSON]',
    });
  });

  it('replaces containers nested deeper than maxDepth', () => {
    let deep: unknown = 'x';
    for (let i = 0; i < 20; i += 1) deep = { d: deep };
    const json = JSON.stringify(redactArguments({ deep }));
    expect(json).toContain(`[redacted: nested deeper than ${REDACTION_LIMITS.maxDepth}]`);
    expect(json.split('{').length - 1).toBe(REDACTION_LIMITS.maxDepth);
  });

  it('summarises members beyond maxValues by a count', () => {
    const max = REDACTION_LIMITS.maxValues;
    // The root object and the array are values too: 2 + (max - 2) items, then the summary.
    const many = Array.from({ length: 1000 }, (_, i) => i);
    const out = redactArguments({ many }) as { many: RedactedValue[] };
    expect(out.many).toHaveLength(max - 2 + 1);
    expect(out.many.at(-1)).toBe(`[redacted: ${1000 - (max - 2)} more items]`);
    const wide = Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`k${i}`, i]));
    const members = redactArguments(wide) as Record<string, RedactedValue>;
    expect(Object.keys(members)).toHaveLength(max - 1 + 1);
    expect(members[MORE_KEY]).toBe(`[redacted: ${1000 - (max - 1)} more members]`);
  });

  it('redacts over-long keys, keeping them distinct', () => {
    const a = 'a'.repeat(100);
    const b = 'b'.repeat(100);
    expect(redactArguments({ [a]: 1, [b]: 2 })).toEqual({
      '[redacted key #0: 100 chars]': 1,
      '[redacted key #1: 100 chars]': 2,
    });
  });

  it('keeps a __proto__ key as data without touching the prototype', () => {
    const args = JSON.parse('{"__proto__": {"polluted": "yes"}}') as Record<string, unknown>;
    const out = redactArguments(args) as Record<string, unknown>;
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.hasOwn(out, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('never lets a string value through unless it is an object id (property)', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), (args) => {
        const out = redactArguments(args);
        for (const leaf of leaves(out)) {
          expect(MARKER.test(leaf) || isId(leaf)).toBe(true);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('never leaks a planted secret anywhere in the output (property)', () => {
    const secret = fc.string({ minLength: 1, maxLength: 30 }).map((s) => `SECRET-${s}`);
    const withSecret = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: 'small' },
        secret,
        fc.jsonValue({ maxDepth: 2 }),
        fc.array(tie('value'), { maxLength: 5 }),
        fc.dictionary(fc.string({ maxLength: 10 }), tie('value'), { maxKeys: 5 }),
      ),
    })).value;
    fc.assert(
      fc.property(
        fc.dictionary(fc.string({ maxLength: 10 }), withSecret, { minKeys: 1 }),
        secret,
        (args, planted) => {
          const json = JSON.stringify(redactArguments({ ...args, planted }));
          expect(json).not.toContain('SECRET-');
        },
      ),
      { numRuns: 500 },
    );
  });

  it('keeps the output bounded whatever the input (property)', () => {
    const bound =
      REDACTION_LIMITS.maxValues * (6 * REDACTION_LIMITS.maxKeyChars + MAX_ID_CHARS + 16) + 4096;
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 12 })), (args) => {
        expect(JSON.stringify(redactArguments(args)).length).toBeLessThanOrEqual(bound);
      }),
      { numRuns: 200 },
    );
  });

  it('is deterministic', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), (args) => {
        expect(redactArguments(args)).toEqual(redactArguments(args));
      }),
      { numRuns: 100 },
    );
  });
});
