/**
 * What the approval API answers about confirmations, for people deciding them (the console) and
 * for scripts: a waiting confirmation as one caller may see it, and a decided one in its history.
 * These are views of the confirm stage's records, never messages on a topic.
 */
import type { ConfirmationRequest } from './confirmation-request.js';
import type { CardWithChanges } from '../types.js';

// A card's changes are part of what tools build (`ToolSpec.card`), so their types live with `Card`.
export type { CardChange, CardWithChanges } from '../types.js';

/** Longest rejection reason, in UTF-16 code units; longer ones are refused, never cut. */
export const MAX_REJECTION_REASON_CHARS = 280;

/** The call as it would run now, rebuilt from live objects and current policy. */
export type LiveCallView =
  | {
      readonly state: 'same' | 'changed';
      readonly card: CardWithChanges;
      /** The digest an approval would name now; differs from the card's when `changed`. */
      readonly digest: string;
    }
  /** The call cannot be rebuilt now (its object is gone, its tool unknown here); why, in words. */
  | { readonly state: 'unavailable'; readonly reason: string };

/** What the caller may do with one waiting confirmation. */
export interface CallerRights {
  /** Policy lets the caller approve or reject it now (the approvals consumer asks the same). */
  readonly mayDecide: boolean;
  /** The caller proposed the call. */
  readonly isRequester: boolean;
}

/** A waiting confirmation as `GET /pending` shows it to one caller. */
export interface PendingView extends ConfirmationRequest {
  readonly card: CardWithChanges;
  /** The arguments as they will run. */
  readonly args: Readonly<Record<string, unknown>>;
  /** Why the call waits for a person: the tool's rule, in words. */
  readonly rule: string;
  /** The policy version the call was authorized under. */
  readonly policyVersion: string;
  /** Four eyes: policy refuses the requester as approver of their own call. */
  readonly fourEyes: boolean;
  readonly caller: CallerRights;
  readonly live: LiveCallView;
}

/** How a decided confirmation ended. */
export type DecidedOutcome =
  /** Approved and cleared to run. */
  | 'approved'
  /** Rejected by a person, with their reason. */
  | 'rejected'
  /** Rejected by a person who proposed a changed call in its place (`replacedBy`). */
  | 'amended'
  /** Nobody decided before it expired. */
  | 'expired'
  /** Ended because its objects or policy changed under it (`content_changed`). */
  | 'changed'
  /** Ended because the call no longer authorizes, or failed for good. */
  | 'ended';

/** A decided confirmation, as `GET /decided` lists it. */
export interface DecidedView {
  readonly confirmationId: string;
  readonly proposalId: string;
  readonly runId: string;
  readonly tenant: string;
  readonly tool: string;
  readonly requestedBy: string;
  readonly card: CardWithChanges;
  readonly outcome: DecidedOutcome;
  /** Who decided; absent for an expiry or an end no person gave. */
  readonly decidedBy?: string;
  /** ISO-8601 instant of the decision. */
  readonly decidedAt: string;
  /** The rejecter's reason, as it reached the agent. */
  readonly reason?: string;
  /** For `amended`: the proposal that carries the changed call. */
  readonly replacedBy?: { readonly proposalId: string; readonly runId: string };
}

/** The body of `POST /confirmations/:id/reject`. */
export interface RejectBody {
  readonly digest: string;
  /** Why, for the agent's observation; at most {@link MAX_REJECTION_REASON_CHARS}. */
  readonly reason?: string;
}

/**
 * The body of `POST /confirmations/:id/amend`: reject the card shown (`digest`) and propose the
 * same call with `args` instead, as a new proposal that climbs every rung and waits for its own
 * approval.
 */
export interface AmendBody {
  readonly digest: string;
  readonly args: Readonly<Record<string, unknown>>;
  readonly reason?: string;
}

/** The answer to an amend: the original's rejection and where the changed call went. */
export interface AmendAnswer {
  readonly confirmationId: string;
  readonly decision: 'reject';
  readonly replacement: { readonly proposalId: string; readonly runId: string };
}
