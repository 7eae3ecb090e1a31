/** OpenAI Chat Completions responses as proposals. */
import type { Proposal } from '@toolgate/shared';
import { UnrecognizedResponseError } from './agent-client-error.js';
import { finishWordOf, listOf, proposalsOf, recordOf, type ProposalIds } from './proposal-ids.js';

const FORMAT = 'openai-chat';

/**
 * One `openai-chat` proposal per `choices[0].message.tool_calls[]` item of a Chat Completions
 * response (the object the API or the official SDK returns, unchanged), each with
 * `finishReason = choices[0].finish_reason`. Only the first choice is read (ask for `n = 1`). A
 * reply without tool calls yields none.
 *
 * @throws UnrecognizedResponseError when `response` has no `choices` list or its first choice has
 * no `message` object.
 */
export function fromOpenAIChat(response: unknown, ids: ProposalIds): Proposal[] {
  const choices = recordOf(FORMAT, response, 'the response')['choices'];
  if (!Array.isArray(choices))
    throw new UnrecognizedResponseError(FORMAT, 'choices must be a list');
  if (choices.length === 0) return [];
  const choice = recordOf(FORMAT, choices[0], 'choices[0]');
  const message = recordOf(FORMAT, choice['message'], 'choices[0].message');
  const calls = listOf(FORMAT, message['tool_calls'], 'choices[0].message.tool_calls');
  return proposalsOf(FORMAT, finishWordOf(choice['finish_reason']), calls, ids);
}
