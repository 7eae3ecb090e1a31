/** The approval a person gives or refuses, on `approvals` (DESIGN §2). */

/** What an approver may answer. */
export const APPROVAL_DECISIONS = ['approve', 'reject'] as const;

/** One approval decision. */
export type ApprovalDecision = (typeof APPROVAL_DECISIONS)[number];

/**
 * An approval event, keyed by `confirmationId`; the approver's session token travels in the
 * `toolgate-session` header, never in the value.
 */
export interface Approval {
  readonly confirmationId: string;
  readonly decision: ApprovalDecision;
  /** The confirmation digest the approver saw on the card. */
  readonly digest: string;
}

/** The approval of `decision` on the confirmation `confirmationId`, as the approver saw `digest`. */
export function approval(
  confirmationId: string,
  decision: ApprovalDecision,
  digest: string,
): Approval {
  return { confirmationId, decision, digest };
}
