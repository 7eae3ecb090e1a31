/**
 * The example's `calculate` tool: arithmetic with + - * /, unary signs and parentheses, evaluated
 * by a small recursive-descent parser. No `eval`, no `Function`: the expression is data, never
 * code. Pure.
 *
 *   expression := term (("+" | "-") term)*
 *   term       := factor (("*" | "/") factor)*
 *   factor     := ("+" | "-") factor | number | "(" expression ")"
 *   number     := digits ["." digits] | "." digits
 */

/** Deepest nesting of parentheses and signs the parser follows. */
export const MAX_NESTING = 32;

/** Why an expression has no value. */
export const ARITHMETIC_ERRORS = {
  invalid_expression: 'The expression is not valid arithmetic.',
  division_by_zero: 'The expression divides by zero.',
  too_complex: 'The expression is nested too deeply.',
  out_of_range: 'The result is too large to represent.',
} as const;

/** One reason an expression has no value. */
export type ArithmeticError = keyof typeof ARITHMETIC_ERRORS;

/** The value of an expression, or why it has none (with a message saying where). */
export type Evaluated =
  | { readonly ok: true; readonly value: number }
  | { readonly ok: false; readonly code: ArithmeticError; readonly message: string };

/** Thrown inside the parser only; {@link evaluateArithmetic} turns it into a value. */
class Stop extends Error {
  constructor(
    readonly code: ArithmeticError,
    readonly at?: number,
  ) {
    super(code);
  }
}

/**
 * Evaluates `text`. Results are rounded to 15 significant digits, so `0.1 + 0.2` is `0.3`;
 * `-0` is reported as `0`.
 */
export function evaluateArithmetic(text: string): Evaluated {
  try {
    const value = parse(text);
    if (!Number.isFinite(value)) throw new Stop('out_of_range');
    return { ok: true, value: Number(value.toPrecision(15)) + 0 };
  } catch (error) {
    if (!(error instanceof Stop)) throw error;
    const where = error.at === undefined ? '' : ` Check position ${error.at + 1}.`;
    return { ok: false, code: error.code, message: `${ARITHMETIC_ERRORS[error.code]}${where}` };
  }
}

function parse(text: string): number {
  let at = 0;
  const skip = () => {
    while (text[at] === ' ' || text[at] === '\t') at += 1;
  };
  const peek = () => {
    skip();
    return text[at];
  };
  const expect = (char: string) => {
    if (peek() !== char) throw new Stop('invalid_expression', at);
    at += 1;
  };

  const expression = (depth: number): number => {
    let value = term(depth);
    for (let op = peek(); op === '+' || op === '-'; op = peek()) {
      at += 1;
      const right = term(depth);
      value = op === '+' ? value + right : value - right;
    }
    return value;
  };

  const term = (depth: number): number => {
    let value = factor(depth);
    for (let op = peek(); op === '*' || op === '/'; op = peek()) {
      const opAt = at;
      at += 1;
      const right = factor(depth);
      if (op === '/' && right === 0) throw new Stop('division_by_zero', opAt);
      value = op === '*' ? value * right : value / right;
    }
    return value;
  };

  const factor = (depth: number): number => {
    if (depth > MAX_NESTING) throw new Stop('too_complex', at);
    const next = peek();
    if (next === '+' || next === '-') {
      at += 1;
      const value = factor(depth + 1);
      return next === '-' ? -value : value;
    }
    if (next === '(') {
      at += 1;
      const value = expression(depth + 1);
      expect(')');
      return value;
    }
    return number();
  };

  const number = (): number => {
    const match = /^(?:\d+(?:\.\d*)?|\.\d+)/.exec(text.slice(at));
    if (match === null) throw new Stop('invalid_expression', at);
    at += match[0].length;
    return Number(match[0]);
  };

  const value = expression(0);
  if (peek() !== undefined) throw new Stop('invalid_expression', at);
  return value;
}
