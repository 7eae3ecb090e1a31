/** OpenAI Responses: `call` is one `function_call` output item. */
import { accept, type Decision } from '../decision.js';
import type { NormalizedCall } from '../types.js';
import { completionOf, worseCompletion } from './completion-of.js';
import {
  isNonEmptyString,
  isRecord,
  own,
  unsupportedCall,
  type NormalizerInput,
} from './call-shape.js';

/**
 * Normalizes `{type: "function_call", id?, call_id, name, arguments: string, status?}`; the call id
 * is `call_id`. The response `status` (`completed`, `incomplete`) and the item's own `status` are
 * both read; either one saying the output was cut off makes the call truncated.
 */
export function normalizeOpenAiResponses(
  input: NormalizerInput,
): Decision<NormalizedCall, 'representation'> {
  const { call } = input;
  const format = 'openai-responses';
  if (!isRecord(call)) return unsupportedCall(format, 'call must be a function_call output item');
  if (own(call, 'type') !== 'function_call')
    return unsupportedCall(format, 'type must be "function_call"');
  const callId = own(call, 'call_id');
  if (!isNonEmptyString(callId))
    return unsupportedCall(format, 'call_id must be a non-empty string');
  const name = own(call, 'name');
  if (!isNonEmptyString(name)) return unsupportedCall(format, 'name must be a non-empty string');
  const args = own(call, 'arguments');
  if (typeof args !== 'string') return unsupportedCall(format, 'arguments must be a string');
  const optional = optionalProblem(call);
  if (optional !== undefined) return unsupportedCall(format, optional);
  const status = own(call, 'status');
  const completion = worseCompletion(input.completion, completionOf(status as string | undefined));
  return accept({ callId, tool: name, argumentsText: args, completion });
}

function optionalProblem(call: Readonly<Record<string, unknown>>): string | undefined {
  const id = own(call, 'id');
  if (id !== undefined && typeof id !== 'string') return 'id must be a string when present';
  const status = own(call, 'status');
  if (status !== undefined && typeof status !== 'string')
    return 'status must be a string when present';
  return undefined;
}
