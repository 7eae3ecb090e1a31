/**
 * The pure helpers of string literals: finding a literal's end, decoding it natively, the escape
 * table, and the well-formedness test of UTF-16 that keeps lone surrogates out.
 */

// Character codes are this module's own constants, not imports: V8 checks an imported binding
// each time it is read, and the reader calls these helpers for every literal it reads.
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const ZERO = 0x30;
const NINE = 0x39;

/** A surrogate code unit without its partner (the `u` flag makes a proper pair one code point). */
const LONE_SURROGATE = /\p{Surrogate}/u;

/** True when `text` holds a surrogate code unit without its partner: not well-formed UTF-16. */
export function hasLoneSurrogate(text: string): boolean {
  return LONE_SURROGATE.test(text);
}

/**
 * The index of the quote that closes the literal whose body starts at `from`, or -1. In a valid
 * literal a quote is escaped exactly when an odd run of backslashes precedes it.
 */
export function closingQuote(text: string, from: number): number {
  let q = text.indexOf('"', from);
  while (q >= 0) {
    let slashes = 0;
    while (q - 1 - slashes >= from && text.charCodeAt(q - 1 - slashes) === BACKSLASH) slashes++;
    if (slashes % 2 === 0) return q;
    q = text.indexOf('"', q + 1);
  }
  return -1;
}

/** A whole string literal decoded by the native parser, or undefined if it refuses it. */
export function decodeLiteral(literal: string): string | undefined {
  try {
    return JSON.parse(literal) as string;
  } catch {
    return undefined;
  }
}

/** The code unit of a one-character escape (`\n`, `\"`, `\/`, …) after its backslash, or -1. */
export function simpleEscape(c: number): number {
  switch (c) {
    case QUOTE:
    case BACKSLASH:
    case 0x2f:
      return c;
    case 0x62:
      return 0x08;
    case 0x66:
      return 0x0c;
    case 0x6e:
      return 0x0a;
    case 0x72:
      return 0x0d;
    case 0x74:
      return 0x09;
    default:
      return -1;
  }
}

/** The value of one hexadecimal digit, or -1. */
export function hexValue(c: number): number {
  if (c >= ZERO && c <= NINE) return c - ZERO;
  const lower = c | 0x20;
  if (lower >= 0x61 && lower <= 0x66) return lower - 0x61 + 10;
  return -1;
}
