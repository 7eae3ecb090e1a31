/** Anthropic Messages API responses as proposals. */
import type { Proposal } from '@toolgate/shared';
import { UnrecognizedResponseError } from './agent-client-error.js';
import {
  finishWordOf,
  itemsOfType,
  proposalsOf,
  recordOf,
  type ProposalIds,
} from './proposal-ids.js';

const FORMAT = 'anthropic';

/**
 * One `anthropic` proposal per `content[]` block of type `tool_use` of a Messages API response
 * (the message the API or the official SDK returns, unchanged), each with
 * `finishReason = message.stop_reason`, so a `max_tokens` stop is refused as truncated. Text and
 * thinking blocks, and server tools Anthropic runs itself, are not calls for the gate.
 *
 * @throws UnrecognizedResponseError when `message` is not an object with a `content` list.
 */
export function fromAnthropic(message: unknown, ids: ProposalIds): Proposal[] {
  const m = recordOf(FORMAT, message, 'the message');
  const content = m['content'];
  if (!Array.isArray(content))
    throw new UnrecognizedResponseError(FORMAT, 'content must be a list');
  return proposalsOf(FORMAT, finishWordOf(m['stop_reason']), itemsOfType(content, 'tool_use'), ids);
}
