/** The bare format: `call` is the model's own text, `{"action": name, "arguments": {...}}`. */
import { accept, rejecterFor, type Decision } from '../decision.js';
import type { NormalizedCall } from '../types.js';
import {
  isNonEmptyString,
  isRecord,
  jsonTypeOf,
  own,
  unsupportedCall,
  type NormalizerInput,
} from './call-shape.js';
import { quoteKey } from './refusals.js';
import { readArgumentsText } from './read-arguments-text.js';

const reject = rejecterFor('representation');

const FORM =
  'The reply is not a tool call in the expected form. Send exactly one JSON object: {"action": "<tool name>", "arguments": {…}}.';

/**
 * Normalizes the model's raw text: parsed here (a known Markdown fence around it is stripped and
 * recorded), then it must be an object with exactly `action` (a non-empty string) and `arguments`
 * (checked by `parseCall`), else `malformed_call` (repair: the model wrote it). The byte ceiling
 * covers the whole text; depth is counted from the arguments object, as in every other format.
 * The call id is the proposalId. A finish word that says "cut off" refuses before parsing.
 */
export function normalizeActionJson(
  input: NormalizerInput,
): Decision<NormalizedCall, 'representation'> {
  const { call, completion, limits } = input;
  if (typeof call !== 'string')
    return unsupportedCall('action-json', 'call must be the model text, a string');
  if (completion === 'truncated') {
    return reject('truncated', undefined, 'the finish word marks the completion as cut off');
  }
  const read = readArgumentsText(call, {
    maxBytes: limits.maxBytes,
    maxDepth: limits.maxDepth + 1,
  });
  if (!read.ok) return read;
  const { value, repaired } = read.value;
  const problem = shapeProblem(value);
  if (problem !== undefined) return reject('malformed_call', FORM, problem);
  const fields = value as Readonly<Record<string, unknown>>;
  return accept({
    callId: input.proposalId,
    tool: own(fields, 'action') as string,
    argumentsObject: own(fields, 'arguments'),
    completion,
    ...(repaired === undefined ? {} : { repaired }),
  });
}

function shapeProblem(value: unknown): string | undefined {
  if (!isRecord(value)) return `the text is a JSON ${jsonTypeOf(value)}, not an object`;
  const extra = Object.keys(value).filter((key) => key !== 'action' && key !== 'arguments');
  if (extra.length > 0) return `unexpected member ${quoteKey(extra[0] ?? '')}`;
  if (!isNonEmptyString(own(value, 'action'))) return 'action must be a non-empty string';
  if (!Object.hasOwn(value, 'arguments')) return 'arguments is missing';
  return undefined;
}
