/**
 * The pure helpers of number literals: the fast path for short integers, and the test that a
 * double keeps every digit a literal wrote.
 */

// Character codes are this module's own constants, not imports: V8 checks an imported binding
// each time it is read, and the reader calls these helpers for every literal it reads.
const MINUS = 0x2d;
const ZERO = 0x30;

/**
 * Whether `value` keeps every digit of `literal`: the shortest decimal that reads back as `value`
 * (what `String` and `JSON.stringify` write, so what a tool is sent) is the same number as the
 * literal, compared by sign, significant digits and power of ten.
 */
export function keepsDigits(literal: string, value: number): boolean {
  return decimalKey(literal) === decimalKey(String(value));
}

/**
 * A finite decimal literal (JSON's grammar, or `String` of a number: `-1.5e+30`) as
 * `<sign><significant digits>e<power of ten of the first significant digit>`, so that every
 * spelling of one number gives the same key: `1500`, `1.50e3` and `15e2` are all `15e3`.
 * Undefined for zero. Linear in the literal's length (no backtracking on long runs of zeros).
 */
function decimalKey(literal: string): string | undefined {
  const match = DECIMAL.exec(literal);
  if (match === null) return undefined;
  const [, sign = '', whole = '', fraction = '', exponent = '0'] = match;
  const digits = whole + fraction;
  let first = 0;
  while (first < digits.length && digits.charCodeAt(first) === ZERO) first++;
  let last = digits.length;
  while (last > first && digits.charCodeAt(last - 1) === ZERO) last--;
  if (first === last) return undefined;
  const power = whole.length - first - 1 + Number(exponent);
  return `${sign}${digits.slice(first, last)}e${String(power)}`;
}

/** Sign, whole digits, fraction digits and exponent of a decimal literal. */
const DECIMAL = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

/** A plain integer of at most 15 characters (always exact in a double), computed without a slice. */
export function smallInteger(text: string, start: number, end: number): number {
  const negative = text.charCodeAt(start) === MINUS;
  let value = 0;
  for (let i = negative ? start + 1 : start; i < end; i++)
    value = value * 10 + text.charCodeAt(i) - ZERO;
  return negative ? -value : value;
}
