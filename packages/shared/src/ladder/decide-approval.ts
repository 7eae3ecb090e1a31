/**
 * What the confirm stage does with one approval of a waiting confirmation. Single use is kept by
 * the shell's atomic take, and only a FINAL decision takes: a person who may not approve, or an
 * approval of a card the approver did not see, must not use up the confirmation (or they could
 * cancel other people's work), so those are audited and the confirmation keeps waiting.
 */
import { checkApproval, checkApprovalContent, type ApprovalFacts } from '../confirmation/index.js';
import type { Decision, Rejected } from '../decision.js';
import type { LiveCall } from './reauthorize-for-approval.js';
import { refusal, type AuthorizedProposal, type Refusal, type Step } from './validated.js';

/** What to do with one approval. */
export type ApprovalAction =
  /** Take the confirmation and clear the live call: a person approved exactly this. */
  | {
      readonly act: 'clear';
      readonly call: AuthorizedProposal;
      readonly confirmed: { readonly confirmedBy: string; readonly confirmedAt: string };
    }
  /** Take the confirmation and end the call: a terminal observation and an audit event. */
  | { readonly act: 'end'; readonly refusal: Refusal }
  /** Audit only: the confirmation keeps waiting for someone who may decide it. */
  | { readonly act: 'keep'; readonly refusal: Refusal };

/** An action that takes the confirmation: `clear` or `end`. */
export type FinalApprovalAction = Exclude<ApprovalAction, { readonly act: 'keep' }>;

/** Everything the shell gathered about one approval of a confirmation that still waits. */
export interface ApprovalCheck extends Omit<ApprovalFacts, 'alreadyDecided' | 'liveDigest'> {
  /** `reauthorizeForApproval` of the requester's call, now. */
  readonly live: Step<LiveCall>;
}

/** What is gathered again when an approval that took its confirmation is delivered again. */
export type TakenApprovalCheck = Pick<
  ApprovalCheck,
  'pending' | 'decision' | 'approvalDigest' | 'reason' | 'approver' | 'live' | 'now'
>;

/**
 * Runs `checkApproval` (whose order is the contract: expired, approver, digest, content, reject)
 * on the live digest, then sorts its answer:
 * - accept → `clear` the live call (its objects and policy version are the ones the digest binds);
 * - `expired` → `keep`: the expiry sweeper ends the call, once, with its `expired` observation;
 * - `approver_not_authorized`, or `content_changed` because the APPROVAL names a digest other than
 *   the pending one (a stale card) → `keep`;
 * - the requester's call no longer authorizes (policy changed, object gone, precondition failed) →
 *   `end` with that refusal; the live card differs from the pending one → `end` with
 *   `content_changed`; a person rejected it → `end` with `rejected_by_human`.
 */
export function decideApproval(check: ApprovalCheck): ApprovalAction {
  const liveDigest = liveDigestOf(check.live);
  const verdict = checkApproval({ ...check, alreadyDecided: false, liveDigest });
  if (!verdict.ok && keepsWaiting(verdict, check)) {
    return { act: 'keep', refusal: refusal(verdict) };
  }
  return finalAction(verdict, check.live);
}

/**
 * What to do with an approval delivered again after it took its confirmation (the transaction
 * that carried its outputs failed). Nothing else can end the call any more, so the answer is
 * final. Who approved, with what permission and in time was judged when it took, and a take
 * follows only from a decision that passed those checks: judging them again with a later clock,
 * rotated session keys or changed policy could only strand the call. What the approval binds is
 * judged again, as `checkApprovalContent` asks it of the live call: a call that no longer
 * authorizes or a changed card → `end`, a reject → `end` with `rejected_by_human`, else `clear`.
 */
export function decideTakenApproval(check: TakenApprovalCheck): FinalApprovalAction {
  const verdict = checkApprovalContent({ ...check, liveDigest: liveDigestOf(check.live) });
  return finalAction(verdict, check.live);
}

/** The live call's digest; none (an empty string, never a SHA-256 hex digest) matches nothing. */
function liveDigestOf(live: Step<LiveCall>): string {
  return live.ok && live.value.plan.needed ? live.value.plan.digest : '';
}

function finalAction(
  verdict: Decision<{ readonly confirmedBy: string; readonly confirmedAt: string }, 'confirmation'>,
  live: Step<LiveCall>,
): FinalApprovalAction {
  if (verdict.ok) {
    // A match implies a live digest, hence a live call; without one nothing may clear.
    return live.ok
      ? { act: 'clear', call: live.value.authorized, confirmed: verdict.value }
      : { act: 'end', refusal: live };
  }
  return { act: 'end', refusal: live.ok ? refusal(verdict) : live };
}

function keepsWaiting(r: Rejected<'confirmation'>, check: ApprovalCheck): boolean {
  switch (r.code) {
    case 'expired':
    case 'approver_not_authorized':
    case 'already_decided':
    case 'unknown_confirmation':
    case 'invalid_approval':
    case 'invalid_card':
    case 'proposal_reused':
    case 'pending':
      return true;
    case 'content_changed':
      return check.approvalDigest !== check.pending.digest;
    case 'rejected_by_human':
      return false;
  }
}
