/**
 * Why and where the JSON reader stops, and how it words what it found. The words name characters,
 * never quote the text, so a fault can be shown to the model that wrote it.
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

/** The reader's private stop signal; caught in `readJson`, it never leaves the reader. */
export class ReadStop extends Error {
  constructor(readonly fault: ReadFault) {
    super(fault.what);
  }
}

/** Names a character for a message: printable ASCII quoted, anything else as U+XXXX. */
function nameOf(c: number): string {
  if (c >= 0x21 && c <= 0x7e) return `'${String.fromCharCode(c)}'`;
  return `U+${c.toString(16).toUpperCase().padStart(4, '0')}`;
}

/** What was found where `expected` was due, with a hint for the mistakes models make most. */
export function unexpected(c: number, expected: string): string {
  if (c === 0x27) return 'a single quote (JSON strings use double quotes)';
  if (c === 0x60) return 'a backtick (send only the JSON, without Markdown)';
  if (c === 0x2f) return "a '/' (JSON has no comments)";
  if (c === 0x54 || c === 0x46 || c === 0x4e) {
    return `${nameOf(c)} (JSON literals are lowercase: true, false, null)`;
  }
  return `${nameOf(c)} where ${expected} was expected`;
}

/** What was found where a field name was due. */
export function unexpectedKey(c: number): string {
  if (c === 0x27) return unexpected(c, 'a field name');
  if ((c | 0x20) >= 0x61 && (c | 0x20) <= 0x7a) return 'a field name without double quotes';
  return unexpected(c, 'a field name in double quotes');
}
