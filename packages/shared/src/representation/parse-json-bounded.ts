/**
 * The bounded parser: strict RFC 8259 JSON within a byte and a depth ceiling, refusing what other
 * parsers would silently resolve (duplicate keys, prototype keys, numbers that lose digits).
 */
import { accept, rejecterFor, type Decision } from '../decision.js';
import { readJson } from './json-reader.js';
import type { ParseLimits } from './parse-limits.js';
import { guarded, refusalForFault, tooLarge } from './refusals.js';
import { oversizeBytes } from './utf8-length.js';

const reject = rejecterFor('representation');

/**
 * Decodes one JSON text (RFC 8259, strictly) within `limits`. Refusals, checked in this order:
 * - `too_large`: the text takes more than `maxBytes` bytes of UTF-8 (checked before reading);
 * - then the first problem in reading order: `too_deep` (more than `maxDepth` nested containers,
 *   the outermost being depth 1), `duplicate_key`, `forbidden_key` (`__proto__`, `constructor`,
 *   `prototype` at any depth), `unrepresentable_number` (overflow, non-zero underflow, or a number
 *   beyond 2^53 whose digits the double would not keep, however it is spelled: `9007199254740993`,
 *   `9007199254740993.0`, `9007199254740993e0`), `truncated` (the text ends early: it is a proper prefix of a
 *   valid JSON text, disposition retry), `invalid_json` otherwise. Empty or whitespace-only text is
 *   `invalid_json`: nothing was begun, so nothing ended early. Lone surrogates, raw or escaped,
 *   are `invalid_json` (UTF-8 cannot carry them).
 *
 * Objects are ordinary objects whose keys are all own data properties; a forbidden key never
 * reaches an assignment. Never throws.
 */
export function parseJsonBounded(
  text: string,
  limits: ParseLimits,
): Decision<unknown, 'representation'> {
  return guarded(() => decodeJsonText(text, limits, 0), 'invalid_json');
}

/**
 * `parseJsonBounded` for a text that starts `origin` characters into what the model wrote, so that
 * positions in messages point into the model's own text.
 */
export function decodeJsonText(
  text: unknown,
  limits: ParseLimits,
  origin: number,
): Decision<unknown, 'representation'> {
  if (typeof text !== 'string') {
    return reject('invalid_json', undefined, `expected a JSON text, got a ${typeof text}`);
  }
  const bytes = oversizeBytes(text, limits.maxBytes);
  if (bytes !== undefined) return tooLarge(bytes, limits.maxBytes);
  const read = readJson(text, limits.maxDepth);
  return read.ok ? accept(read.value) : refusalForFault(read.fault, origin);
}
