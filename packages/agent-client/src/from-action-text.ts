/** The bare action format: the model's own text. */
import type { Proposal } from '@toolgate/shared';
import { UnrecognizedResponseError } from './agent-client-error.js';
import { proposalsOf, type ProposalIds } from './proposal-ids.js';

/**
 * The `action-json` proposal of a model's reply text, meant to be
 * `{"action": "<tool>", "arguments": {…}}` (a Markdown fence around it is fine). The text goes as
 * is, whatever it holds: the gate reads it, and refuses it for repair when it is not a call.
 *
 * @param finishReason - The provider's finish word for the reply, if known (default null).
 * @throws UnrecognizedResponseError when `text` is not a string.
 */
export function fromActionText(
  text: unknown,
  ids: ProposalIds,
  finishReason: string | null = null,
): Proposal[] {
  if (typeof text !== 'string') {
    throw new UnrecognizedResponseError('action-json', 'the reply must be the model text');
  }
  return proposalsOf('action-json', finishReason, [text], ids);
}
