import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ARITHMETIC_ERRORS, evaluateArithmetic, MAX_NESTING } from './evaluate-arithmetic.js';

const value = (text: string) => {
  const evaluated = evaluateArithmetic(text);
  if (!evaluated.ok) throw new Error(`${text}: ${evaluated.code}`);
  return evaluated.value;
};

describe('evaluateArithmetic', () => {
  it('respects precedence, associativity, parentheses and signs', () => {
    expect(value('1 + 2 * 3')).toBe(7);
    expect(value('(1 + 2) * 3')).toBe(9);
    expect(value('10 - 4 - 3')).toBe(3);
    expect(value('48 / 4 / 2')).toBe(6);
    expect(value('-(2 + 3) * -2')).toBe(10);
    expect(value('--3')).toBe(3);
    expect(value(' 1200.50 * 0.2 ')).toBe(240.1);
    expect(value('.5 + 1.')).toBe(1.5);
  });

  it('hides binary floating-point noise and never answers minus zero', () => {
    expect(value('0.1 + 0.2')).toBe(0.3);
    expect(Object.is(value('-0 * 1'), 0)).toBe(true);
  });

  it('refuses division by zero, pointing at the division', () => {
    expect(evaluateArithmetic('1 + 4 / (2 - 2)')).toEqual({
      ok: false,
      code: 'division_by_zero',
      message: `${ARITHMETIC_ERRORS.division_by_zero} Check position 7.`,
    });
  });

  it('refuses what is not arithmetic, and never runs it as code', () => {
    for (const text of ['', '1 +', '(1', '1)', '2 ** 3', '1e3', 'process.exit(1)', '1..2', '1 2']) {
      expect(evaluateArithmetic(text), text).toMatchObject({
        ok: false,
        code: 'invalid_expression',
      });
    }
  });

  it('refuses nesting deeper than it follows, and results out of range', () => {
    const deep = `${'('.repeat(MAX_NESTING + 1)}1${')'.repeat(MAX_NESTING + 1)}`;
    expect(evaluateArithmetic(deep)).toMatchObject({ ok: false, code: 'too_complex' });
    expect(value(`${'('.repeat(MAX_NESTING)}1${')'.repeat(MAX_NESTING)}`)).toBe(1);
    const huge = `${'9'.repeat(200)} * ${'9'.repeat(200)}`;
    expect(evaluateArithmetic(huge)).toMatchObject({ ok: false, code: 'out_of_range' });
  });

  it('agrees with integer arithmetic on sums and products of small integers', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -999, max: 999 }),
        fc.integer({ min: -999, max: 999 }),
        (a, b) => {
          expect(value(`(${a}) + (${b}) * 2`)).toBe(a + b * 2);
        },
      ),
    );
  });
});
