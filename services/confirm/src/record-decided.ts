/**
 * The history hook of the approvals consumer: once an approval has taken its confirmation, how it
 * ended goes into the tenant's history before the outputs are published. A transaction that then
 * fails is retried with the same message, which takes again by its token and writes the same
 * record again: history is a view, the audit topic is the record.
 */
import type { Confirmations } from '@toolgate/platform';
import {
  approvalEnding,
  decidedView,
  isAmendRejection,
  type Approval,
  type FinalApprovalAction,
  type PendingConfirmation,
} from '@toolgate/shared';

/**
 * Records how `action` ends `pending` (approved by `approver`, or ended with its refusal's code)
 * and answers the action to publish. The rejection an amend sent is recorded as `amended`, and
 * its agent is told the amend's reason: who changed the call and which proposal carries it.
 */
export async function recordApprovalEnd(
  confirmations: Pick<Confirmations, 'readAmend' | 'recordDecided'>,
  pending: PendingConfirmation,
  action: FinalApprovalAction,
  decided: { readonly approval: Approval; readonly approver: string; readonly now: Date },
): Promise<FinalApprovalAction> {
  const { approval, approver, now } = decided;
  const endedWith = action.act === 'end' ? action.refusal.rejected.code : undefined;
  const amend =
    endedWith === 'rejected_by_human'
      ? await confirmations.readAmend(pending.tenant, pending.confirmationId)
      : undefined;
  const ending = approvalEnding({
    approval,
    approver,
    ...(endedWith === undefined ? {} : { endedWith }),
    ...(amend === undefined ? {} : { amend }),
  });
  await confirmations.recordDecided(decidedView(pending, ending, now));
  if (action.act !== 'end' || !isAmendRejection(amend, approval, approver)) return action;
  const { refusal } = action;
  return {
    ...action,
    refusal: { ...refusal, rejected: { ...refusal.rejected, publicMessage: amend.reason } },
  };
}
