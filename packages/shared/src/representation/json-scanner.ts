/**
 * The lexical level of the JSON reader: a cursor over the text that reads one token at a time
 * (string, number, `true`/`false`/`null`) and skips whitespace, stopping with a {@link ReadStop} at
 * the first fault. The grammar above it (objects, arrays, keys, depth) is `JsonReader`.
 */
import { keepsDigits, smallInteger } from './json-number-literal.js';
import { ReadStop, unexpected, type ReadCode } from './json-read-fault.js';
import {
  closingQuote,
  decodeLiteral,
  hasLoneSurrogate,
  hexValue,
  simpleEscape,
} from './json-string-literal.js';

// Character codes are this module's own constants, not imports: V8 checks an imported binding
// each time it is read, and these are read in the reader's innermost loops.
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const MINUS = 0x2d;
const PLUS = 0x2b;
const DOT = 0x2e;
const ZERO = 0x30;
const NINE = 0x39;

const isDigit = (c: number): boolean => c >= ZERO && c <= NINE;
const isWhitespace = (c: number): boolean => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/** Up to this many characters a plain loop finds the end of a literal faster than native calls. */
const SHORT_STRING = 48;

/** Characters that stop a literal from being its own slice: escapes, controls, surrogates. */
// eslint-disable-next-line no-control-regex -- raw control characters are what it must find
const NEEDS_CARE = /[\\\u0000-\u001f\ud800-\udfff]/;

/** Reads the tokens of one JSON text; `pos` is the UTF-16 offset of the next unread character. */
export abstract class JsonScanner {
  protected pos = 0;
  protected readonly end: number;

  constructor(
    protected readonly text: string,
    /**
     * The nesting ceiling, enforced by the grammar above. Held here so that the reader needs no
     * constructor of its own: a derived constructor made every read measurably slower.
     */
    protected readonly maxDepth: number,
  ) {
    this.end = text.length;
  }

  /**
   * A string literal; the opening quote is at `pos`. Most literals have no escape and are a slice:
   * short ones are found by a plain loop, long ones by the native indexOf and a regex (whose
   * per-call cost only pays off on long runs). Literals with escapes are decoded by the native
   * parser once their end is known. Anything that fails either way goes through the precise scan,
   * which names the fault and its position.
   */
  protected string(): string {
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
  protected number(depth: number): number {
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

  protected literal<T>(word: string, value: T): T {
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
  protected peek(expected: string): number {
    this.skipWhitespace();
    if (this.pos >= this.end) this.fail('truncated', `expected ${expected}`);
    return this.text.charCodeAt(this.pos);
  }

  protected char(): number {
    return this.text.charCodeAt(this.pos);
  }

  protected skipWhitespace(): void {
    while (this.pos < this.end && isWhitespace(this.text.charCodeAt(this.pos))) this.pos++;
  }

  protected stopAtKey(code: ReadCode, what: string, at: number, key: string): never {
    throw new ReadStop({ code, at, what, key });
  }

  protected fail(code: ReadCode, what: string, at = this.pos): never {
    throw new ReadStop({ code, at, what });
  }
}
