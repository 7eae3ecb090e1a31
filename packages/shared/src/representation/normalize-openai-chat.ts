/** OpenAI Chat Completions: `call` is one `tool_calls[]` item. */
import { accept, type Decision } from '../decision.js';
import type { NormalizedCall } from '../types.js';
import {
  isNonEmptyString,
  isRecord,
  own,
  unsupportedCall,
  type NormalizerInput,
} from './call-shape.js';

/**
 * Normalizes `{id, type: "function", function: {name, arguments: string}}`. The finish word is the
 * choice's `finish_reason`: `tool_calls`/`stop` complete, `length` and `content_filter` truncated,
 * anything else unknown (the structure decides).
 */
export function normalizeOpenAiChat(
  input: NormalizerInput,
): Decision<NormalizedCall, 'representation'> {
  const { call, completion } = input;
  if (!isRecord(call))
    return unsupportedCall('openai-chat', 'call must be a tool_calls[] item object');
  if (own(call, 'type') !== 'function')
    return unsupportedCall('openai-chat', 'type must be "function"');
  const id = own(call, 'id');
  if (!isNonEmptyString(id)) return unsupportedCall('openai-chat', 'id must be a non-empty string');
  const fn = own(call, 'function');
  if (!isRecord(fn)) return unsupportedCall('openai-chat', 'function must be an object');
  const name = own(fn, 'name');
  if (!isNonEmptyString(name)) {
    return unsupportedCall('openai-chat', 'function.name must be a non-empty string');
  }
  const args = own(fn, 'arguments');
  if (typeof args !== 'string') {
    return unsupportedCall('openai-chat', 'function.arguments must be a string');
  }
  return accept({ callId: id, tool: name, argumentsText: args, completion });
}
