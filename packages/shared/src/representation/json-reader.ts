/**
 * The strict, bounded JSON reader behind `parseJsonBounded`: one pass over the string, recursive
 * descent with the depth bound checked before each container is entered, values built as it goes.
 * Internal to the representation rung; the public face is `parseJsonBounded`.
 */

/** Why the reader stopped. Every code is a representation code of the catalogue. */
export type ReadCode =
  | 'truncated'
  | 'invalid_json'
  | 'too_deep'
  | 'duplicate_key'
  | 'forbidden_key'
  | 'unrepresentable_number';

/** Where and why reading stopped. `at` is a UTF-16 offset into the text; `what` never quotes it. */
export interface ReadFault {
  readonly code: ReadCode;
  readonly at: number;
  readonly what: string;
  /** The field name, for duplicate and forbidden keys. */
  readonly key?: string;
}

/** The reader's answer: the value, or the first fault in reading order. */
export type ReadResult =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly fault: ReadFault };

/** The `what` of a text that holds no value at all (empty or whitespace only). */
export const NO_VALUE = 'no JSON value (the text is empty)';

/** Keys refused at any depth: they reach prototypes through assignment, merge or lookup. */
export const FORBIDDEN_KEYS: ReadonlySet<string> = new Set([
  '__proto__',
  'constructor',
  'prototype',
]);

/** The reader's private stop signal; caught in `readJson`, it never leaves this module. */
class ReadStop extends Error {
  constructor(readonly fault: ReadFault) {
    super(fault.what);
  }
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const MINUS = 0x2d;
const PLUS = 0x2b;
const DOT = 0x2e;
const ZERO = 0x30;
const NINE = 0x39;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

/**
 * Reads one complete JSON text (RFC 8259) with containers nested at most `maxDepth` deep (the
 * outermost container is depth 1). Never throws for any string.
 */
export function readJson(text: string, maxDepth: number): ReadResult {
  try {
    return { ok: true, value: new JsonReader(text, maxDepth).document() };
  } catch (signal) {
    if (signal instanceof ReadStop) return { ok: false, fault: signal.fault };
    throw signal;
  }
}

const isDigit = (c: number): boolean => c >= ZERO && c <= NINE;
const isWhitespace = (c: number): boolean => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

class JsonReader {
  private pos = 0;
  private readonly end: number;

  constructor(
    private readonly text: string,
    private readonly maxDepth: number,
  ) {
    this.end = text.length;
  }

  document(): unknown {
    this.skipWhitespace();
    if (this.pos >= this.end) this.fail('invalid_json', NO_VALUE);
    const value = this.value(0);
    this.skipWhitespace();
    if (this.pos < this.end) this.fail('invalid_json', 'text after the JSON value');
    return value;
  }

  /** One value inside `depth` enclosing containers. */
  private value(depth: number): unknown {
    const c = this.peek('a value');
    if (c === OPEN_BRACE) return this.object(depth + 1);
    if (c === OPEN_BRACKET) return this.array(depth + 1);
    if (c === QUOTE) return this.string();
    if (c === MINUS || isDigit(c)) return this.number(depth);
    if (c === 0x74) return this.literal('true', true);
    if (c === 0x66) return this.literal('false', false);
    if (c === 0x6e) return this.literal('null', null);
    return this.fail('invalid_json', unexpected(c, 'a value'));
  }

  private object(depth: number): Record<string, unknown> {
    this.enter(depth);
    const result: Record<string, unknown> = {};
    this.pos++;
    if (this.peek("a field name or '}'") === CLOSE_BRACE) {
      this.pos++;
      return result;
    }
    for (;;) {
      const key = this.key(result);
      if (this.peek("':'") !== COLON) this.fail('invalid_json', unexpected(this.char(), "':'"));
      this.pos++;
      // Safe: `__proto__` was refused in `key`, so assignment only ever creates an own property.
      result[key] = this.value(depth);
      if (this.separator(CLOSE_BRACE, "',' or '}'")) return result;
    }
  }

  private array(depth: number): unknown[] {
    this.enter(depth);
    const result: unknown[] = [];
    this.pos++;
    if (this.peek("a value or ']'") === CLOSE_BRACKET) {
      this.pos++;
      return result;
    }
    for (;;) {
      result.push(this.value(depth));
      if (this.separator(CLOSE_BRACKET, "',' or ']'")) return result;
    }
  }

  private enter(depth: number): void {
    // Written as a negation so that a NaN ceiling refuses instead of allowing everything.
    if (!(depth <= this.maxDepth)) {
      this.fail('too_deep', `nesting deeper than ${String(this.maxDepth)}`);
    }
  }

  /** After a member: true at the closing bracket, false after a comma (which must be followed by more). */
  private separator(close: number, expected: string): boolean {
    const c = this.peek(expected);
    this.pos++;
    if (c === close) return true;
    if (c !== COMMA) this.fail('invalid_json', unexpected(c, expected), this.pos - 1);
    if (this.peek('another member') === close) this.fail('invalid_json', 'a trailing comma');
    return false;
  }

  private key(into: object): string {
    const c = this.peek('a field name');
    if (c !== QUOTE) this.fail('invalid_json', unexpectedKey(c));
    const at = this.pos;
    const key = this.string();
    // The length test spares the set lookup for almost every key (the forbidden ones are 9 and 11).
    if ((key.length === 9 || key.length === 11) && FORBIDDEN_KEYS.has(key)) {
      this.stopAtKey('forbidden_key', 'a reserved field name', at, key);
    }
    if (Object.hasOwn(into, key)) this.stopAtKey('duplicate_key', 'a repeated field name', at, key);
    return key;
  }

  /**
   * A string literal; the opening quote is at `pos`. Most literals have no escape and are a slice:
   * short ones are found by a plain loop, long ones by the native indexOf and a regex (whose
   * per-call cost only pays off on long runs). Literals with escapes are decoded by the native
   * parser once their end is known. Anything that fails either way goes through the precise scan,
   * which names the fault and its position.
   */
  private string(): string {
    const { text } = this;
    const start = this.pos + 1;
    const stop = Math.min(this.end, start + SHORT_STRING);
    for (let i = start; i < stop; i++) {
      const c = text.charCodeAt(i);
      if (c === QUOTE) {
        this.pos = i + 1;
        return text.slice(start, i);
      }
      if (c === BACKSLASH || c < 0x20 || (c & 0xf800) === 0xd800) return this.escapedString();
    }
    return this.longString();
  }

  private longString(): string {
    const start = this.pos;
    const close = closingQuote(this.text, start + 1);
    if (close < 0) return this.preciseString();
    const body = this.text.slice(start + 1, close);
    if (NEEDS_CARE.test(body)) return this.escapedString();
    this.pos = close + 1;
    return body;
  }

  private escapedString(): string {
    const start = this.pos;
    const close = closingQuote(this.text, start + 1);
    if (close < 0) return this.preciseString();
    const decoded = decodeLiteral(this.text.slice(start, close + 1));
    if (decoded === undefined || hasLoneSurrogate(decoded)) return this.preciseString();
    this.pos = close + 1;
    return decoded;
  }

  /** The character-by-character string scan: exact about where and why a literal is wrong. */
  private preciseString(): string {
    const { text, end } = this;
    let pos = this.pos + 1;
    let runStart = pos;
    let out = '';
    let highAt = -1;
    while (pos < end) {
      const c = text.charCodeAt(pos);
      if (c === QUOTE) {
        if (highAt >= 0) this.fail('invalid_json', 'an unpaired surrogate', highAt);
        this.pos = pos + 1;
        return out + text.slice(runStart, pos);
      }
      if (c === BACKSLASH) {
        out += text.slice(runStart, pos);
        const unit = this.escape(pos);
        highAt = this.surrogate(unit, highAt, pos);
        out += String.fromCharCode(unit);
        pos = runStart = this.pos;
        continue;
      }
      if (c < 0x20) this.fail('invalid_json', 'a raw control character in a string', pos);
      if (highAt >= 0 || (c & 0xf800) === 0xd800) highAt = this.surrogate(c, highAt, pos);
      pos++;
    }
    this.pos = pos;
    return this.fail('truncated', 'inside a string');
  }

  /**
   * Tracks UTF-16 pairing: returns where an unpaired high surrogate waits, or -1. Lone surrogates
   * cannot be encoded as UTF-8, so tools in other languages would see a different value.
   */
  private surrogate(unit: number, highAt: number, at: number): number {
    const isLow = unit >= 0xdc00 && unit <= 0xdfff;
    if (highAt >= 0) {
      if (!isLow) this.fail('invalid_json', 'an unpaired surrogate', highAt);
      return -1;
    }
    if (isLow) this.fail('invalid_json', 'an unpaired surrogate', at);
    return unit >= 0xd800 && unit <= 0xdbff ? at : -1;
  }

  /** One escape sequence starting at the backslash at `at`; leaves `pos` after it. */
  private escape(at: number): number {
    if (at + 1 >= this.end) this.fail('truncated', 'inside an escape sequence', at);
    const simple = simpleEscape(this.text.charCodeAt(at + 1));
    if (simple >= 0) {
      this.pos = at + 2;
      return simple;
    }
    if (this.text.charCodeAt(at + 1) !== 0x75) {
      this.fail('invalid_json', 'an invalid escape sequence', at);
    }
    let unit = 0;
    for (let k = at + 2; k < at + 6; k++) {
      if (k >= this.end) this.fail('truncated', 'inside a \\u escape', at);
      const h = hexValue(this.text.charCodeAt(k));
      if (h < 0) this.fail('invalid_json', 'an invalid \\u escape', at);
      unit = unit * 16 + h;
    }
    this.pos = at + 6;
    return unit;
  }

  /** A number literal; at the end of the text inside a container it may still go on: truncated. */
  private number(depth: number): number {
    const start = this.pos;
    let pos = start;
    if (this.text.charCodeAt(pos) === MINUS) pos++;
    if (pos >= this.end) this.fail('truncated', 'inside a number', pos);
    const first = this.text.charCodeAt(pos);
    if (first === ZERO) pos++;
    else if (isDigit(first)) pos = this.digits(pos);
    else this.fail('invalid_json', unexpected(first, 'a digit'), pos);
    let plain = true;
    if (pos < this.end && this.text.charCodeAt(pos) === DOT) {
      plain = false;
      pos = this.requiredDigits(pos + 1);
    }
    if (pos < this.end && (this.text.charCodeAt(pos) | 0x20) === 0x65) {
      plain = false;
      pos = this.exponent(pos + 1);
    }
    if (pos >= this.end && depth > 0) this.fail('truncated', 'inside a number', pos);
    this.pos = pos;
    if (plain && pos - start < 16) return smallInteger(this.text, start, pos);
    return this.representable(this.text.slice(start, pos), start);
  }

  private exponent(pos: number): number {
    const sign = pos < this.end ? this.text.charCodeAt(pos) : -1;
    return this.requiredDigits(sign === PLUS || sign === MINUS ? pos + 1 : pos);
  }

  private requiredDigits(pos: number): number {
    if (pos >= this.end) this.fail('truncated', 'inside a number', pos);
    const c = this.text.charCodeAt(pos);
    if (!isDigit(c)) this.fail('invalid_json', unexpected(c, 'a digit'), pos);
    return this.digits(pos);
  }

  private digits(pos: number): number {
    let p = pos;
    while (p < this.end && isDigit(this.text.charCodeAt(p))) p++;
    return p;
  }

  /**
   * The literal's value, refused when the double would silently differ from what the model wrote:
   * overflow to infinity, a non-zero literal that underflows to zero, or a magnitude beyond 2^53
   * (where every double is an integer, so `type: integer` accepts it) whose digits the double does
   * not keep, however it is spelled: `9007199254740993`, `9007199254740993.0` and `…993e0` all
   * read as 9007199254740992 and are refused, as is `9007199254740993.5`; `1e300` and
   * `6.02214076e23` keep every digit written and are read. Below 2^53, fractions round as doubles
   * always do.
   */
  private representable(literal: string, at: number): number {
    const value = Number(literal);
    if (value === Infinity || value === -Infinity) {
      this.fail('unrepresentable_number', 'a number too large for a double', at);
    }
    if (value === 0 && /[1-9]/.test(literal.split(/[eE]/)[0] ?? '')) {
      this.fail('unrepresentable_number', 'a non-zero number too small for a double', at);
    }
    if (Math.abs(value) > Number.MAX_SAFE_INTEGER && !keepsDigits(literal, value)) {
      this.fail('unrepresentable_number', 'a number too large to represent exactly', at);
    }
    return value;
  }

  private literal<T>(word: string, value: T): T {
    for (let k = 0; k < word.length; k++) {
      const p = this.pos + k;
      if (p >= this.end) this.fail('truncated', `inside '${word}'`, p);
      const c = this.text.charCodeAt(p);
      if (c !== word.charCodeAt(k)) this.fail('invalid_json', unexpected(c, `'${word}'`), p);
    }
    this.pos += word.length;
    return value;
  }

  /** The next non-whitespace character, without consuming it; the text ending here is truncation. */
  private peek(expected: string): number {
    this.skipWhitespace();
    if (this.pos >= this.end) this.fail('truncated', `expected ${expected}`);
    return this.text.charCodeAt(this.pos);
  }

  private char(): number {
    return this.text.charCodeAt(this.pos);
  }

  private skipWhitespace(): void {
    while (this.pos < this.end && isWhitespace(this.text.charCodeAt(this.pos))) this.pos++;
  }

  private stopAtKey(code: ReadCode, what: string, at: number, key: string): never {
    throw new ReadStop({ code, at, what, key });
  }

  private fail(code: ReadCode, what: string, at = this.pos): never {
    throw new ReadStop({ code, at, what });
  }
}

/** Up to this many characters a plain loop finds the end of a literal faster than native calls. */
const SHORT_STRING = 48;

/** Characters that stop a literal from being its own slice: escapes, controls, surrogates. */
// eslint-disable-next-line no-control-regex -- raw control characters are what it must find
const NEEDS_CARE = /[\\\u0000-\u001f\ud800-\udfff]/;

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
function closingQuote(text: string, from: number): number {
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
function decodeLiteral(literal: string): string | undefined {
  try {
    return JSON.parse(literal) as string;
  } catch {
    return undefined;
  }
}

/**
 * Whether `value` keeps every digit of `literal`: the shortest decimal that reads back as `value`
 * (what `String` and `JSON.stringify` write, so what a tool is sent) is the same number as the
 * literal, compared by sign, significant digits and power of ten.
 */
function keepsDigits(literal: string, value: number): boolean {
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
function smallInteger(text: string, start: number, end: number): number {
  const negative = text.charCodeAt(start) === MINUS;
  let value = 0;
  for (let i = negative ? start + 1 : start; i < end; i++)
    value = value * 10 + text.charCodeAt(i) - ZERO;
  return negative ? -value : value;
}

function simpleEscape(c: number): number {
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

function hexValue(c: number): number {
  if (c >= ZERO && c <= NINE) return c - ZERO;
  const lower = c | 0x20;
  if (lower >= 0x61 && lower <= 0x66) return lower - 0x61 + 10;
  return -1;
}

/** Names a character for a message: printable ASCII quoted, anything else as U+XXXX. */
function nameOf(c: number): string {
  if (c >= 0x21 && c <= 0x7e) return `'${String.fromCharCode(c)}'`;
  return `U+${c.toString(16).toUpperCase().padStart(4, '0')}`;
}

/** What was found where `expected` was due, with a hint for the mistakes models make most. */
function unexpected(c: number, expected: string): string {
  if (c === 0x27) return 'a single quote (JSON strings use double quotes)';
  if (c === 0x60) return 'a backtick (send only the JSON, without Markdown)';
  if (c === 0x2f) return "a '/' (JSON has no comments)";
  if (c === 0x54 || c === 0x46 || c === 0x4e) {
    return `${nameOf(c)} (JSON literals are lowercase: true, false, null)`;
  }
  return `${nameOf(c)} where ${expected} was expected`;
}

function unexpectedKey(c: number): string {
  if (c === 0x27) return unexpected(c, 'a field name');
  if ((c | 0x20) >= 0x61 && (c | 0x20) <= 0x7a) return 'a field name without double quotes';
  return unexpected(c, 'a field name in double quotes');
}
