/**
 * The call a pending confirmation waits for, as it stands when an approval arrives: authorized
 * again for the ORIGINAL requester against the live objects and the current policy, and its
 * confirmation plan rebuilt from those objects, so the approval is checked against today's card.
 */
import type { Tool } from '../tools/index.js';
import type { ResolvedObject } from '../types.js';
import { authorizeProposal, type AuthorizeFacts } from './authorize-proposal.js';
import { planConfirmation } from './plan-confirmation.js';
import type { AuthorizedProposal, ConfirmationPlan, Step, ValidatedProposal } from './validated.js';

/** The live state of a call an approval would clear. */
export interface LiveCall {
  /** The call authorized now: live objects, current policy version. */
  readonly authorized: AuthorizedProposal;
  /** The confirmation plan of the live call; its digest is what an approval must match. */
  readonly plan: ConfirmationPlan;
}

/**
 * Re-runs resolution, authorization and preconditions for `v` (the requester's call, from the
 * pending confirmation) on `loaded` (the live objects of `referencesOf(v, tool)` under the
 * requester's tenant), then plans its confirmation again. A refusal means the requester may no
 * longer do this, or the world no longer allows it: the approval cannot clear it.
 */
export function reauthorizeForApproval(
  v: ValidatedProposal,
  tool: Tool,
  loaded: readonly (ResolvedObject | undefined)[],
  facts: AuthorizeFacts,
): Step<LiveCall> {
  const authorized = authorizeProposal(v, tool, loaded, facts);
  if (!authorized.ok) return authorized;
  return {
    ok: true,
    value: { authorized: authorized.value, plan: planConfirmation(authorized.value, tool) },
  };
}
