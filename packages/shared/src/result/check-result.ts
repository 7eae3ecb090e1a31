import { sha256Hex } from '../idempotency/canonical-sha256.js';
import { accept, rejecterFor, type Decision } from '../decision.js';
import { isCount } from '../limits/is-count.js';
import { scanForInjection } from './scan-for-injection.js';
import { wrapToolOutput } from './wrap-tool-output.js';

const reject = rejecterFor('result');

/**
 * What the model sees instead of withheld output: the shell publishes
 * `result: { content: WITHHELD_TEXT, withheld: true }`.
 */
export const WITHHELD_TEXT = 'tool output withheld';

/** The result ceilings of one tool. */
export interface ResultLimits {
  /** Ceiling on the UTF-8 bytes of the serialized output (`Ceilings.resultBytes` or the tool's own). */
  readonly maxBytes: number;
  /** The tool's output schema, compiled by the shell; `true` when the output conforms. */
  readonly validateOutput?: (output: unknown) => boolean;
}

/** Output the model may see, already wrapped in delimiters. */
export interface CheckedResult {
  readonly content: string;
  readonly withheld: false;
}

/**
 * The result rung (DESIGN §6). In order: the output is serialized (a string as itself, `undefined`
 * as the empty string, anything else as JSON); its UTF-8 bytes are held to `maxBytes`
 * (`too_large`); it is validated (`invalid_output`, also when it cannot be serialized or the
 * validator throws); every string in it, keys included, is scanned for injection (`withheld`);
 * and the serialized text is wrapped with {@link wrapToolOutput}. Strings are scanned one by one
 * so that line-start patterns see real line breaks, not JSON's `\n`. Wrapping adds the two
 * markers (about 80 bytes) and a byte per `<` neutralised, beyond `maxBytes`.
 *
 * Public messages are the catalogue's and never contain the output; internal details give sizes,
 * the pattern name and a SHA-256 of the output, so the audit stream can find it without copying it.
 */
export function checkResult(
  output: unknown,
  limits: ResultLimits,
): Decision<CheckedResult, 'result'> {
  const text = serialize(output);
  if (text === undefined)
    return reject('invalid_output', undefined, 'output is not JSON-serializable');
  const bytes = Buffer.byteLength(text, 'utf8');
  if (!isCount(limits.maxBytes) || bytes > limits.maxBytes) {
    return reject('too_large', undefined, `output is ${bytes} bytes, ceiling ${limits.maxBytes}`);
  }
  const invalid = validationProblem(output, limits.validateOutput);
  if (invalid !== undefined) return reject('invalid_output', undefined, invalid);
  const pattern = firstInjection(output);
  if (pattern !== undefined) {
    return reject(
      'withheld',
      undefined,
      `matched ${pattern}; ${bytes} bytes, sha256 ${sha256Hex(text)}`,
    );
  }
  return accept({ content: wrapToolOutput(text), withheld: false });
}

function serialize(output: unknown): string | undefined {
  if (typeof output === 'string') return output;
  if (output === undefined) return '';
  try {
    return JSON.stringify(output);
  } catch {
    return undefined;
  }
}

function validationProblem(
  output: unknown,
  validate: ((output: unknown) => boolean) | undefined,
): string | undefined {
  if (validate === undefined) return undefined;
  try {
    return validate(output) ? undefined : 'output does not match the output schema';
  } catch (error) {
    // A throwing validator is a bug in the tool's definition; fail closed, never show the output.
    return `output validator threw: ${String(error).slice(0, 200)}`;
  }
}

/** The first injection pattern matching any string in `output` (keys included), or undefined. */
function firstInjection(output: unknown): string | undefined {
  // Iterative, so deeply nested output cannot overflow the stack.
  const pending: unknown[] = [output];
  while (pending.length > 0) {
    const value = pending.pop();
    if (typeof value === 'string') {
      const hit = scanForInjection(value);
      if (hit !== undefined) return hit;
    } else if (Array.isArray(value)) {
      for (const item of value as readonly unknown[]) pending.push(item);
    } else if (typeof value === 'object' && value !== null) {
      for (const [key, child] of Object.entries(value)) pending.push(key, child);
    }
  }
  return undefined;
}
