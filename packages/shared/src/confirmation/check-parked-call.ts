/**
 * When the confirm stage finds a confirmation already parked under a proposal's id by another
 * message: is it this call, sent again, or another call under a reused proposalId?
 */
import { accept, rejecterFor, type Decision } from '../decision.js';
import { canonicalSha256OrUndefined } from '../idempotency/canonical-sha256.js';
import type { PendingConfirmation } from './check-approval.js';

const reject = rejecterFor('confirmation');

/**
 * `parked` when it is the call `ours` describes (the same requester, run, request, call id, tool
 * and arguments): its request and observation went out with the message that parked it, so there
 * is nothing more to publish. Else `proposal_reused`: proposalIds are unique per submission
 * (DESIGN §9) and the confirmation id is derived from the proposalId, so this call cannot get a
 * confirmation of its own; dropping it would leave it with no observation at all. The detail names
 * ids only, never arguments.
 */
export function checkParkedCall(
  parked: PendingConfirmation,
  ours: PendingConfirmation,
): Decision<PendingConfirmation, 'confirmation'> {
  const differs: string[] = DESCRIBING.filter((field) => parked[field] !== ours[field]);
  // Arguments that passed validation are JSON; if not, they count as different, not as a crash.
  const theirs = canonicalSha256OrUndefined(parked.args);
  if (theirs === undefined || theirs !== canonicalSha256OrUndefined(ours.args))
    differs.push('args');
  if (differs.length === 0) return accept(parked);
  const detail =
    `proposal ${ours.proposalId}: confirmation ${parked.confirmationId} is parked for another ` +
    `call (call ${parked.callId} of tool ${parked.tool}, requested by ${parked.requestedBy}); ` +
    `this call differs in ${differs.join(', ')}`;
  return reject('proposal_reused', undefined, detail);
}

/** The fields that tell one call from another, besides its arguments. */
const DESCRIBING = ['requestedBy', 'runId', 'requestId', 'callId', 'tool'] as const;
