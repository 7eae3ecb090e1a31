/** Anthropic Messages: `call` is one `tool_use` content block. */
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
 * Normalizes `{type: "tool_use", id, name, input}`. `input` is passed on as `argumentsObject`
 * whatever it is; `parseCall` checks it (not an object: `not_an_object`). The finish word is
 * `stop_reason`: `tool_use`/`end_turn` complete, `max_tokens` truncated. Anthropic delivers the
 * input already decoded, so the finish word is the only sign of a cut-off call here.
 */
export function normalizeAnthropic(
  input: NormalizerInput,
): Decision<NormalizedCall, 'representation'> {
  const { call, completion } = input;
  if (!isRecord(call)) return unsupportedCall('anthropic', 'call must be a tool_use content block');
  if (own(call, 'type') !== 'tool_use')
    return unsupportedCall('anthropic', 'type must be "tool_use"');
  const id = own(call, 'id');
  if (!isNonEmptyString(id)) return unsupportedCall('anthropic', 'id must be a non-empty string');
  const name = own(call, 'name');
  if (!isNonEmptyString(name))
    return unsupportedCall('anthropic', 'name must be a non-empty string');
  if (!Object.hasOwn(call, 'input')) return unsupportedCall('anthropic', 'input is required');
  return accept({ callId: id, tool: name, argumentsObject: own(call, 'input'), completion });
}
