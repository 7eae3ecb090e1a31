/** The second half of the representation rung: the call's arguments, decoded completely. */
import { accept, rejecterFor, type Decision } from '../decision.js';
import type { NormalizedCall, ParsedCall } from '../types.js';
import { isRecord, jsonTypeOf, own } from './call-shape.js';
import { checkJsonTree } from './check-json-tree.js';
import type { ParseLimits } from './parse-limits.js';
import { readArgumentsText, type DecodedText } from './read-arguments-text.js';
import { guarded } from './refusals.js';

const reject = rejecterFor('representation');

/**
 * Decodes the call's arguments completely, within `limits`, into a plain object:
 * - completion `truncated` (the finish word): `truncated`/retry, whatever the text looks like;
 * - `argumentsText`: parsed strictly; text that ends early is `truncated` whatever the finish word
 *   said; the only repair is a known Markdown fence around the whole text (`repaired: 'fence'`);
 * - `argumentsObject`: checked for the same ceilings, forbidden keys and JSON-ness, and copied;
 * - anything but an object is `not_an_object` (a JSON-encoded string is not unwrapped).
 * No value the model did not give is invented: no closing of brackets, no quote fixing, no Python
 * literals, no unwrapping. Never throws.
 */
export function parseCall(
  call: NormalizedCall,
  limits: ParseLimits,
): Decision<ParsedCall, 'representation'> {
  return guarded(() => parseChecked(call, limits), 'invalid_json');
}

function parseChecked(
  call: NormalizedCall,
  limits: ParseLimits,
): Decision<ParsedCall, 'representation'> {
  if (!isRecord(call) || typeof call.callId !== 'string' || typeof call.tool !== 'string') {
    return reject(
      'invalid_proposal',
      undefined,
      'parseCall was given something other than a normalized call',
    );
  }
  if (call.completion === 'truncated') {
    return reject('truncated', undefined, 'the finish word marks the completion as cut off');
  }
  const decoded = decodeArguments(call, limits);
  if (!decoded.ok) return decoded;
  const { value } = decoded.value;
  if (!isRecord(value)) return notAnObject(value);
  const repaired = decoded.value.repaired ?? call.repaired;
  return accept({
    callId: call.callId,
    tool: call.tool,
    args: value,
    ...(repaired === undefined ? {} : { repaired }),
  });
}

function decodeArguments(
  call: NormalizedCall,
  limits: ParseLimits,
): Decision<DecodedText, 'representation'> {
  const text = own(call as unknown as Record<string, unknown>, 'argumentsText');
  const object = own(call as unknown as Record<string, unknown>, 'argumentsObject');
  if (text !== undefined && object !== undefined) {
    return reject(
      'invalid_proposal',
      undefined,
      'the normalized call carries both argumentsText and argumentsObject',
    );
  }
  if (text !== undefined) {
    if (typeof text === 'string') return readArgumentsText(text, limits);
    return reject('invalid_proposal', undefined, `argumentsText is a ${typeof text}`);
  }
  const tree = checkJsonTree(object, limits);
  return tree.ok ? accept({ value: tree.value }) : tree;
}

function notAnObject(value: unknown) {
  const type = jsonTypeOf(value);
  const hint =
    type === 'string' ? ' Send the object itself, not the object encoded as a string.' : '';
  return reject(
    'not_an_object',
    `The tool call arguments must be a JSON object, not ${type === 'array' ? 'an array' : `a ${type}`}.${hint}`,
    `arguments are a JSON ${type}`,
  );
}
