/**
 * How the representation rung words its refusals: the public text says what to fix and quotes no
 * more of the model's text than a field name, cut short; the internal detail says where.
 */
import { rejecterFor, type Decision, type Rejected } from '../decision.js';
import { NO_VALUE, type ReadFault } from './json-read-fault.js';

const reject = rejecterFor('representation');

/** The refusal for a reader fault; `origin` shifts offsets when the text sat inside a fence. */
export function refusalForFault(fault: ReadFault, origin: number): Rejected<'representation'> {
  const at = fault.at + origin;
  const where = `at character ${String(at + 1)}`;
  const detail = `${fault.what} at offset ${String(at)}`;
  switch (fault.code) {
    case 'truncated':
      return reject('truncated', undefined, `the text ends early: ${detail}`);
    case 'invalid_json':
      if (fault.what === NO_VALUE) {
        return reject(
          'invalid_json',
          'The tool call arguments are empty. Send them as one JSON object ({} if the tool takes none).',
          detail,
        );
      }
      return reject(
        'invalid_json',
        `The tool call arguments are not valid JSON: ${fault.what} ${where}. Send them again as one JSON object.`,
        detail,
      );
    case 'too_deep':
      return reject('too_deep', undefined, detail);
    case 'duplicate_key':
      return reject(
        'duplicate_key',
        `The tool call arguments name the field ${quoteKey(fault.key ?? '')} more than once. Send each field once.`,
        `${detail}: ${quoteKey(fault.key ?? '')}`,
      );
    case 'forbidden_key':
      return reject('forbidden_key', undefined, `${detail}: ${quoteKey(fault.key ?? '')}`);
    case 'unrepresentable_number':
      return reject(
        'unrepresentable_number',
        `The tool call arguments contain ${fault.what} ${where}. Send a smaller number, or a string if the tool takes one.`,
        detail,
      );
  }
}

/** The refusal for a text or object over the byte ceiling. */
export function tooLarge(bytes: number, maxBytes: number): Rejected<'representation'> {
  return reject(
    'too_large',
    undefined,
    `at least ${String(bytes)} UTF-8 bytes > maxBytes=${String(maxBytes)}`,
  );
}

/** A field name for a message: JSON-quoted, cut to 40 characters. */
export function quoteKey(key: string): string {
  return JSON.stringify(key.length > 40 ? `${key.slice(0, 40)}…` : key);
}

/**
 * Runs a rung function so that it cannot throw: the core promises a decision for any input, and a
 * throw in a Kafka handler would mean "deliver again" forever. A fault (a throwing getter or proxy
 * handed in-process, a stack exhausted by an absurd depth ceiling) becomes a refusal: fail closed.
 */
export function guarded<T>(
  run: () => Decision<T, 'representation'>,
  code: 'invalid_json' | 'invalid_proposal',
): Decision<T, 'representation'> {
  try {
    return run();
  } catch (error) {
    const detail = `fault while decoding, refused: ${describeError(error)}`;
    return error instanceof RangeError
      ? reject('too_deep', undefined, detail)
      : reject(code, undefined, detail);
  }
}

function describeError(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : `a thrown ${typeof error}`;
}
