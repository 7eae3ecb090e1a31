/** The first half of the representation rung: envelope, then the format's normalizer. */
import { accept, type Decision } from '../decision.js';
import type { NormalizedCall, Proposal, ProposalFormat } from '../types.js';
import type { NormalizerInput } from './call-shape.js';
import {
  checkEnvelope,
  idTooLong,
  invalidProposal,
  MAX_PROPOSAL_ID_CHARS,
} from './check-envelope.js';
import { completionOf } from './completion-of.js';
import { normalizeActionJson } from './normalize-action-json.js';
import { normalizeAnthropic } from './normalize-anthropic.js';
import { normalizeMcp } from './normalize-mcp.js';
import { normalizeOpenAiChat } from './normalize-openai-chat.js';
import { normalizeOpenAiResponses } from './normalize-openai-responses.js';
import type { ParseLimits } from './parse-limits.js';
import { guarded } from './refusals.js';

/** A proposal whose envelope is sound, and its one call in the gate's own form. */
export interface NormalizedProposal {
  readonly proposal: Proposal;
  readonly call: NormalizedCall;
}

const NORMALIZERS: Readonly<
  Record<ProposalFormat, (input: NormalizerInput) => Decision<NormalizedCall, 'representation'>>
> = {
  'openai-chat': normalizeOpenAiChat,
  'openai-responses': normalizeOpenAiResponses,
  anthropic: normalizeAnthropic,
  mcp: normalizeMcp,
  'action-json': normalizeActionJson,
};

/**
 * Checks the envelope (DESIGN §9: `proposalId`, `runId`, `requestId` non-empty strings; `format`
 * one of PROPOSAL_FORMATS; `attempt` a non-negative integer, default 0; `repairOf` a non-empty
 * string or null; `finishReason` a string or null; `call` present; no other field; ids at most
 * MAX_PROPOSAL_ID_CHARS) and refuses with `invalid_proposal` or `unsupported_format`; then runs the
 * format's normalizer, which maps the finish word and refuses a malformed payload with
 * `unsupported_format` (`malformed_call` for the bare action text, which the model wrote), and
 * refuses a call id longer than the envelope's ids may be with `invalid_proposal`. For
 * `action-json` the text is parsed here, within `limits`. Tool names are not checked (the schema
 * rung does). Never throws.
 */
export function normalizeProposal(
  input: unknown,
  limits: ParseLimits,
): Decision<NormalizedProposal, 'representation'> {
  return guarded(() => normalizeChecked(input, limits), 'invalid_proposal');
}

function normalizeChecked(
  input: unknown,
  limits: ParseLimits,
): Decision<NormalizedProposal, 'representation'> {
  const envelope = checkEnvelope(input);
  if (!envelope.ok) return envelope;
  const proposal = envelope.value;
  const call = NORMALIZERS[proposal.format]({
    call: proposal.call,
    completion: completionOf(proposal.finishReason),
    proposalId: proposal.proposalId,
    limits,
  });
  if (!call.ok) return call;
  if (call.value.callId.length > MAX_PROPOSAL_ID_CHARS)
    return invalidProposal([idTooLong('the call id')]);
  return accept({ proposal, call: call.value });
}
