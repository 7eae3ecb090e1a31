/** Model Context Protocol: `call` is a JSON-RPC `tools/call` request. */
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
 * Normalizes `{jsonrpc: "2.0", id, method: "tools/call", params: {name, arguments?}}`. The call id
 * is `String(id)`; a numeric id must be a safe integer, because a larger one has already lost
 * digits in decoding and two calls could share an idempotency key. Absent `arguments` are `{}`, as
 * MCP defines them; present ones pass on as `argumentsObject` for `parseCall` to check.
 */
export function normalizeMcp(input: NormalizerInput): Decision<NormalizedCall, 'representation'> {
  const { call, completion } = input;
  if (!isRecord(call)) return unsupportedCall('mcp', 'call must be a JSON-RPC request object');
  if (own(call, 'jsonrpc') !== '2.0') return unsupportedCall('mcp', 'jsonrpc must be "2.0"');
  if (own(call, 'method') !== 'tools/call')
    return unsupportedCall('mcp', 'method must be "tools/call"');
  const id = own(call, 'id');
  if (!isNonEmptyString(id) && !Number.isSafeInteger(id)) {
    return unsupportedCall('mcp', 'id must be a non-empty string or a safe integer');
  }
  const params = own(call, 'params');
  if (!isRecord(params)) return unsupportedCall('mcp', 'params must be an object');
  const name = own(params, 'name');
  if (!isNonEmptyString(name))
    return unsupportedCall('mcp', 'params.name must be a non-empty string');
  const args = Object.hasOwn(params, 'arguments') ? own(params, 'arguments') : {};
  return accept({ callId: String(id), tool: name, argumentsObject: args, completion });
}
