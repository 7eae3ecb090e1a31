/** OpenAI Responses API responses as proposals. */
import type { Proposal } from '@toolgate/shared';
import { UnrecognizedResponseError } from './agent-client-error.js';
import {
  finishWordOf,
  itemsOfType,
  proposalsOf,
  recordOf,
  type ProposalIds,
} from './proposal-ids.js';

const FORMAT = 'openai-responses';

/**
 * One `openai-responses` proposal per `output[]` item of type `function_call` of a Responses API
 * response (the object the API or the official SDK returns, unchanged), each with
 * `finishReason = response.status`, so an `incomplete` response is refused as truncated. Other
 * output items (reasoning, messages, hosted tool calls) are not calls for the gate.
 *
 * @throws UnrecognizedResponseError when `response` is not an object with an `output` list.
 */
export function fromOpenAIResponses(response: unknown, ids: ProposalIds): Proposal[] {
  const r = recordOf(FORMAT, response, 'the response');
  const output = r['output'];
  if (!Array.isArray(output)) throw new UnrecognizedResponseError(FORMAT, 'output must be a list');
  return proposalsOf(FORMAT, finishWordOf(r['status']), itemsOfType(output, 'function_call'), ids);
}
