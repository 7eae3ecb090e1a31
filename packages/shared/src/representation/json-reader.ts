/**
 * The strict, bounded JSON reader behind `parseJsonBounded`: one pass over the string, recursive
 * descent with the depth bound checked before each container is entered, values built as it goes.
 * Internal to the representation rung; the public face is `parseJsonBounded`. Tokens are read by
 * {@link JsonScanner}; faults and their wording are in `json-read-fault.ts`.
 */
import {
  NO_VALUE,
  ReadStop,
  unexpected,
  unexpectedKey,
  type ReadResult,
} from './json-read-fault.js';
import { JsonScanner } from './json-scanner.js';

// Character codes are this module's own constants, not imports: V8 checks an imported binding
// each time it is read, and these are read in the reader's innermost loops.
const QUOTE = 0x22;
const COMMA = 0x2c;
const COLON = 0x3a;
const MINUS = 0x2d;
const ZERO = 0x30;
const NINE = 0x39;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

const isDigit = (c: number): boolean => c >= ZERO && c <= NINE;

/** Keys refused at any depth: they reach prototypes through assignment, merge or lookup. */
export const FORBIDDEN_KEYS: ReadonlySet<string> = new Set([
  '__proto__',
  'constructor',
  'prototype',
]);

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

/** The grammar of JSON over the scanner's tokens: a document, its values, objects and arrays. */
class JsonReader extends JsonScanner {
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
}
