/**
 * A waiting confirmation as `GET /pending` shows it to one caller: the card the requester was
 * shown, the arguments and rule behind it, what the caller may do with it, and the call as it
 * would run now. Shown only to whoever may decide it, by the same policy and live objects the
 * approvals consumer asks, and to the person who asked for it.
 */
import type { PendingConfirmation } from '../confirmation/index.js';
import type { Decision } from '../decision.js';
import type { LiveCall, Step } from '../ladder/index.js';
import { defaultConfirmationRule } from '../tools/confirmation-rule.js';
import type { Principal, SideEffect } from '../types.js';
import type { LiveCallView, PendingView } from './approval-views.js';
import { confirmationRequest } from './confirmation-request.js';

/** The requester's call rebuilt now, and who policy lets approve it. */
export interface RebuiltCall {
  /** `reauthorizeForApproval` of the requester's call on live objects and current policy. */
  readonly live: Step<LiveCall>;
  /** `authorizeApproval` of the caller, as the approvals consumer asks it of an approver. */
  readonly callerAuthorized: Decision<unknown, 'confirmation'>;
  /** `authorizeApproval` of the requester, with their stored roles, for their own call. */
  readonly requesterAuthorized: Decision<unknown, 'confirmation'>;
  /** The tool's side-effect class, for the rule of a confirmation parked without one. */
  readonly sideEffect: SideEffect;
}

/** What {@link pendingView} is built from. */
export interface PendingViewFacts {
  readonly pending: PendingConfirmation;
  readonly caller: Principal;
  /** The call rebuilt now, or why it cannot be here (its tool is not loaded: a deploy under way). */
  readonly rebuilt: Step<RebuiltCall>;
}

/** Why a call whose tool this instance does not have cannot be shown as it would run now. */
export const TOOL_NOT_LOADED_REASON =
  'This gate does not have the tool of this call loaded right now; nobody can decide it until it does.';

/** Why a call that would no longer wait for a person cannot be decided as it stands. */
export const NO_LONGER_CONFIRMED_REASON =
  'As things stand now, this call would not wait for a person; deciding it ends it without running it.';

/**
 * The view of `facts.pending` for `facts.caller`, or undefined when they may not see it: only
 * the requester and those policy lets decide it (`mayDecide`: the caller's tenant is the
 * confirmation's and `callerAuthorized` allows) see a card. `fourEyes` is policy refusing the
 * requester as approver of their own call. `live` is `same` or `changed` as the rebuilt digest
 * is the pending one or not, `unavailable` with the refusal's public message when the call no
 * longer authorizes. Nothing is known of a call whose tool is not loaded here: it is
 * `unavailable`, and nobody may decide it (the approvals consumer would wait too).
 */
export function pendingView(facts: PendingViewFacts): PendingView | undefined {
  const { pending, caller, rebuilt } = facts;
  const isRequester = pending.requestedBy === caller.subject && pending.tenant === caller.tenant;
  const mayDecide =
    rebuilt.ok && caller.tenant === pending.tenant && rebuilt.value.callerAuthorized.ok;
  if (!isRequester && !mayDecide) return undefined;
  const request = confirmationRequest(pending);
  const sideEffect = rebuilt.ok ? rebuilt.value.sideEffect : undefined;
  return {
    ...request,
    args: pending.args,
    rule: pending.rule ?? defaultConfirmationRule(sideEffect),
    policyVersion: pending.policyVersion,
    fourEyes: rebuilt.ok && !rebuilt.value.requesterAuthorized.ok,
    caller: { mayDecide, isRequester },
    live: rebuilt.ok
      ? liveView(pending, rebuilt.value.live)
      : { state: 'unavailable', reason: TOOL_NOT_LOADED_REASON },
  };
}

function liveView(pending: PendingConfirmation, live: Step<LiveCall>): LiveCallView {
  if (!live.ok) return { state: 'unavailable', reason: live.rejected.publicMessage };
  const { plan } = live.value;
  if (!plan.needed) return { state: 'unavailable', reason: NO_LONGER_CONFIRMED_REASON };
  const state = plan.digest === pending.digest ? 'same' : 'changed';
  return { state, card: plan.card, digest: plan.digest };
}
