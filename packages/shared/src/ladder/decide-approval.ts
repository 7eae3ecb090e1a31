/**
 * What the confirm stage does with one approval of a waiting confirmation. Single use is kept by
 * the shell's atomic take, and only a FINAL decision takes: a person who may not approve, or an
 * approval of a card the approver did not see, must not use up the confirmation (or they could
 * cancel other people's work), so those are audited and the confirmation keeps waiting.
 */
import { checkApproval, type ApprovalFacts } from '../confirmation/index.js';
import type { Rejected } from '../decision.js';
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

/** Everything the shell gathered about one approval of a confirmation that still waits. */
export interface ApprovalCheck extends Omit<ApprovalFacts, 'alreadyDecided' | 'liveDigest'> {
  /** `reauthorizeForApproval` of the requester's call, now. */
  readonly live: Step<LiveCall>;
  /**
   * True when this very approval took the confirmation before (its message is delivered again
   * after a crash): nothing else can end the call any more, so every answer is final.
   */
  readonly taken?: boolean;
}

/**
 * Runs `checkApproval` (whose order is the contract: expired, approver, digest, content, reject)
 * on the live digest, then sorts its answer:
 * - accept → `clear` the live call (its objects and policy version are the ones the digest binds);
 * - `expired` → `keep`: the expiry sweeper ends the call, once, with its `expired` observation;
 * - `approver_not_authorized`, or `content_changed` because the APPROVAL names a digest other than
 *   the pending one (a stale card) → `keep`;
 * - the requester's call no longer authorizes (policy changed, object gone, precondition failed) →
 *   `end` with that refusal; the live card differs from the pending one → `end` with
 *   `content_changed`; a person rejected it → `end` with `rejected_by_human`;
 * - after this approval took the confirmation (`taken`), what would `keep` is `end` instead.
 */
export function decideApproval(check: ApprovalCheck): ApprovalAction {
  const { live } = check;
  const liveDigest = live.ok && live.value.plan.needed ? live.value.plan.digest : undefined;
  // No live digest matches none: an empty string is never a SHA-256 hex digest.
  const verdict = checkApproval({ ...check, alreadyDecided: false, liveDigest: liveDigest ?? '' });
  if (verdict.ok) {
    // A match implies a live digest, hence a live call; without one nothing may clear.
    return live.ok
      ? { act: 'clear', call: live.value.authorized, confirmed: verdict.value }
      : { act: 'end', refusal: live };
  }
  if (check.taken !== true && keepsWaiting(verdict, check)) {
    return { act: 'keep', refusal: refusal(verdict) };
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
    case 'pending':
      return true;
    case 'content_changed':
      return check.approvalDigest !== check.pending.digest;
    case 'rejected_by_human':
      return false;
  }
}
