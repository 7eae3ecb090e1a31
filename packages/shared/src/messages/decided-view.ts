/**
 * The history of decided confirmations, as `GET /decided` shows it: one {@link DecidedView} per
 * confirmation that ended, built from its pending record and how it ended. History is a view for
 * people; the audit topic is the record.
 */
import type { Approval } from './approval.js';
import type { DecidedOutcome, DecidedView } from './approval-views.js';
import { isAmendRejection, type AmendNote } from './amend-call.js';
import type { PendingConfirmation } from '../confirmation/check-approval.js';

/** How one confirmation ended: the fields of its {@link DecidedView} that say so. */
export type DecidedEnding = Pick<DecidedView, 'outcome' | 'decidedBy' | 'reason' | 'replacedBy'>;

/** What the approvals consumer knows when an approval ends a confirmation. */
export interface ApprovalEndFacts {
  /** The approval that took the confirmation. */
  readonly approval: Approval;
  /** Its approver's subject, verified when it took. */
  readonly approver: string;
  /** The code of the refusal that ended the call; undefined when it was cleared to run. */
  readonly endedWith?: string;
  /** The amend kept for this confirmation, if one was sent. */
  readonly amend?: AmendNote;
}

/** The record of `pending`, ended as `ending` at `at`. */
export function decidedView(
  pending: PendingConfirmation,
  ending: DecidedEnding,
  at: Date,
): DecidedView {
  const { outcome, decidedBy, reason, replacedBy } = ending;
  return {
    confirmationId: pending.confirmationId,
    proposalId: pending.proposalId,
    runId: pending.runId,
    tenant: pending.tenant,
    tool: pending.tool,
    requestedBy: pending.requestedBy,
    card: pending.card,
    outcome,
    ...(decidedBy === undefined ? {} : { decidedBy }),
    decidedAt: at.toISOString(),
    ...(reason === undefined ? {} : { reason }),
    ...(replacedBy === undefined ? {} : { replacedBy }),
  };
}

/** A confirmation nobody decided in time. */
export const EXPIRED_ENDING: DecidedEnding = { outcome: 'expired' };

/**
 * How an approval that took its confirmation ended it: `approved` when the call was cleared;
 * `amended` for the rejection an amend sent (with the amend's reason and the proposal that
 * replaced it), `rejected` for another person's rejection (with its reason when the approval
 * carries one); `changed` when the world or policy moved under the card; `ended` for anything
 * else (the call no longer authorizes, or finishing it failed for good). `decidedBy` is always the
 * approver: whoever's approval met the end, even one no person chose.
 */
export function approvalEnding(facts: ApprovalEndFacts): DecidedEnding {
  const { approval, approver, endedWith, amend } = facts;
  const decidedBy = approver;
  if (endedWith === undefined) return { outcome: 'approved', decidedBy };
  if (endedWith === 'rejected_by_human') {
    if (isAmendRejection(amend, approval, approver)) {
      return { outcome: 'amended', decidedBy, reason: amend.reason, replacedBy: amend.replacedBy };
    }
    const reason = reasonOf(approval);
    return reason === undefined
      ? { outcome: 'rejected', decidedBy }
      : { outcome: 'rejected', decidedBy, reason };
  }
  const outcome: DecidedOutcome = endedWith === 'content_changed' ? 'changed' : 'ended';
  return { outcome, decidedBy };
}

/** The rejecter's reason, when the approval carries one. */
function reasonOf(approval: Approval): string | undefined {
  const { reason } = approval;
  return reason === '' ? undefined : reason;
}
