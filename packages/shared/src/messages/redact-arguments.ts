/**
 * Redaction of normalized arguments for the audit topic (DESIGN §8): an operator sees the shape
 * of a call and the objects it named, never the text the model wrote.
 */

/** A value of redacted arguments: JSON with every free-text string replaced by a marker. */
export type RedactedValue =
  | null
  | boolean
  | number
  | string
  | readonly RedactedValue[]
  | { readonly [key: string]: RedactedValue };

/**
 * Strings kept as they are: object ids such as `inv_1042` or `cus_Q8xZ`, i.e. at most
 * {@link MAX_ID_CHARS} characters matching `^[a-z]+_[A-Za-z0-9]{1,40}$`.
 */
export const OBJECT_ID_PATTERN = /^[a-z]+_[A-Za-z0-9]{1,40}$/;

/** Longest string kept as an object id, in UTF-16 code units. */
export const MAX_ID_CHARS = 64;

/** The bounds of redacted output. */
export const REDACTION_LIMITS = Object.freeze({
  /** Containers nested deeper than this become a marker. */
  maxDepth: 8,
  /** Values (leaves and containers) written before the rest is summarised by a count. */
  maxValues: 256,
  /** Longest key kept, in UTF-16 code units; longer keys become a marker. */
  maxKeyChars: 64,
});

/** The key under which an object's members beyond `maxValues` are counted. */
export const MORE_KEY = '[more]';

/**
 * Redacts normalized arguments, keeping their shape:
 * - object keys are kept (a key longer than `maxKeyChars` becomes `[redacted key #i: N chars]`,
 *   `i` its position, so keys stay distinct);
 * - strings become `[redacted: N chars]` (N in Unicode code points), except object ids (see
 *   {@link OBJECT_ID_PATTERN}), which are kept so the audit event says which objects a call named;
 * - numbers, booleans and null are kept (amounts and counts are what an operator investigates);
 * - arrays and objects are redacted member by member, in order;
 * - anything JSON cannot carry (undefined, NaN, ±Infinity, BigInt, functions) becomes
 *   `[redacted: not JSON]`.
 *
 * Output is bounded whatever the input: containers deeper than `maxDepth` become
 * `[redacted: nested deeper than 8]`, and after `maxValues` values the remaining members of each
 * open container are summarised (`[redacted: K more items]` as an array's last item, or
 * {@link MORE_KEY}: `[redacted: K more members]` in an object). Measured worst case: about 34 KB
 * of JSON for 255 members with 64-character keys and 64-character ids, about 111 KB when every key
 * is control characters that JSON escapes as `\u0001`.
 *
 * The id exception is a trade-off: free text that happens to look like `word_Token123` is kept.
 * Tools that take secrets should not take them as arguments at all.
 */
export function redactArguments(args: Readonly<Record<string, unknown>>): RedactedValue {
  return redactValue(args, 0, { left: REDACTION_LIMITS.maxValues });
}

interface Budget {
  left: number;
}

function redactValue(value: unknown, depth: number, budget: Budget): RedactedValue {
  budget.left -= 1;
  if (value === null || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : '[redacted: not JSON]';
  if (typeof value === 'string') return redactString(value);
  if (typeof value !== 'object') return '[redacted: not JSON]';
  if (depth >= REDACTION_LIMITS.maxDepth) {
    return `[redacted: nested deeper than ${REDACTION_LIMITS.maxDepth}]`;
  }
  return Array.isArray(value)
    ? redactArray(value as readonly unknown[], depth, budget)
    : redactObject(value as Readonly<Record<string, unknown>>, depth, budget);
}

function redactString(s: string): string {
  if (s.length <= MAX_ID_CHARS && OBJECT_ID_PATTERN.test(s)) return s;
  return `[redacted: ${codePoints(s)} chars]`;
}

function redactArray(items: readonly unknown[], depth: number, budget: Budget): RedactedValue {
  const out: RedactedValue[] = [];
  for (const item of items) {
    if (budget.left <= 0) {
      out.push(`[redacted: ${items.length - out.length} more items]`);
      break;
    }
    out.push(redactValue(item, depth + 1, budget));
  }
  return out;
}

function redactObject(
  o: Readonly<Record<string, unknown>>,
  depth: number,
  budget: Budget,
): RedactedValue {
  const entries: [string, RedactedValue][] = [];
  const keys = Object.keys(o);
  for (const [i, key] of keys.entries()) {
    if (budget.left <= 0) {
      entries.push([MORE_KEY, `[redacted: ${keys.length - i} more members]`]);
      break;
    }
    entries.push([redactKey(key, i), redactValue(o[key], depth + 1, budget)]);
  }
  // fromEntries defines own properties, so a "__proto__" key stays data and sets no prototype.
  return Object.fromEntries(entries);
}

function redactKey(key: string, position: number): string {
  return key.length <= REDACTION_LIMITS.maxKeyChars
    ? key
    : `[redacted key #${position}: ${codePoints(key)} chars]`;
}

function codePoints(s: string): number {
  let n = 0;
  for (const _ of s) n += 1;
  return n;
}
