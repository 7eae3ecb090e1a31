/** The confirmation rung's second half: is this approval good for exactly this pending effect? */
import { accept, rejecterFor, type Decision } from '../decision.js';
import type { CardWithChanges, Principal } from '../types.js';

const reject = rejecterFor('confirmation');

/** How long a confirmation waits for a human by default: 30 minutes (DESIGN §4), in seconds. */
export const DEFAULT_CONFIRMATION_TTL_SECONDS = 1800;

/** A confirmation waiting for a human, as the shell stores it (Redis, with an expiry). */
export interface PendingConfirmation {
  readonly confirmationId: string;
  readonly proposalId: string;
  readonly runId: string;
  readonly requestId: string;
  readonly callId: string;
  readonly tenant: string;
  /** The subject of the principal who proposed the call. */
  readonly requestedBy: string;
  /**
   * The requester's roles from their verified session: on approval the call is authorized again
   * for this requester, against live objects and current policy, and policy reads roles.
   */
  readonly requesterRoles: readonly string[];
  readonly tool: string;
  /** The tool version the call was validated against. */
  readonly toolVersion: string;
  /** The proposal's repair attempt (0 for a first proposal). */
  readonly attempt: number;
  /** Set when validate unwrapped a known fence around the call. */
  readonly repaired?: 'fence';
  /** ISO-8601 instant the validate stage received the proposal; the cleared envelope keeps it. */
  readonly receivedAt: string;
  readonly args: Readonly<Record<string, unknown>>;
  readonly objects: readonly { type: string; id: string; version: number }[];
  readonly card: CardWithChanges;
  /** `confirmationDigest` of the effect as the card showed it. */
  readonly digest: string;
  readonly policyVersion: string;
  /**
   * Why the call waits for a person, in words (`confirmationRuleOf` its tool when it was parked).
   * Absent from records parked before rules were kept: `defaultConfirmationRule` stands in.
   */
  readonly rule?: string;
  /** ISO-8601 instant; at or after it the confirmation is expired. */
  readonly expiresAt: string;
}

/** Everything the shell has gathered about one approval event. */
export interface ApprovalFacts {
  readonly pending: PendingConfirmation;
  readonly decision: 'approve' | 'reject';
  /** The digest the approver saw. */
  readonly approvalDigest: string;
  /** The approver's reason, as `parseApproval` read it (trimmed, bounded); undefined for none. */
  readonly reason?: string | undefined;
  /** Verified from the approver's token by the shell. */
  readonly approver: Principal;
  /** From `authorizeApproval`. */
  readonly approverAuthorized: Decision<{ readonly policyVersion: string }, 'confirmation'>;
  /** Single use: the shell's atomic take found the confirmation already taken. */
  readonly alreadyDecided: boolean;
  /** Digest of the card rebuilt from LIVE objects now (with the current policy version). */
  readonly liveDigest: string;
  readonly now: Date;
}

/**
 * Checks an approval, in this order, each for a reason:
 * 1. `already_decided` — single use comes first: a decided confirmation is finished whoever asks,
 *    and answering anything else about it would re-open it.
 * 2. `expired` (now ≥ expiresAt; an unreadable expiresAt counts as expired) — a late answer
 *    cannot run whoever gives it, and says nothing about content.
 * 3. `approver_not_authorized` (policy denied or failed, or the approver's tenant is not the
 *    pending tenant) — before anything about content, so someone who may not approve learns
 *    nothing (no "the world changed" oracle) and cannot cancel others' work with a reject.
 * 4. `content_changed` — the approval names a stale digest, or the live objects (or policy
 *    version) no longer give the pending digest: a decision holds only for what the approver saw,
 *    so this also precedes a reject, telling the requester the world moved.
 * 5. `rejected_by_human` for a reject.
 * Else accept `{confirmedBy: approver.subject, confirmedAt: now (ISO)}`. Steps 4 and 5 are
 * {@link checkApprovalContent}.
 */
export function checkApproval(
  facts: ApprovalFacts,
): Decision<{ readonly confirmedBy: string; readonly confirmedAt: string }, 'confirmation'> {
  const { pending, now } = facts;
  const id = `confirmation ${pending.confirmationId}`;
  if (facts.alreadyDecided) return reject('already_decided', undefined, `${id} was already taken`);
  const expiresAt = Date.parse(pending.expiresAt);
  if (Number.isNaN(expiresAt) || now.getTime() >= expiresAt) {
    return reject('expired', undefined, `${id} expired at ${pending.expiresAt}`);
  }
  const refusal = approverRefusal(facts, id);
  if (refusal !== undefined) return refusal;
  return checkApprovalContent(facts);
}

/** What {@link checkApprovalContent} looks at. */
export type ApprovalContentFacts = Pick<
  ApprovalFacts,
  'pending' | 'decision' | 'approvalDigest' | 'reason' | 'approver' | 'liveDigest' | 'now'
>;

/**
 * Steps 4 and 5 of {@link checkApproval} alone: `content_changed` when the approval names a
 * digest other than the pending one or the live objects no longer give it, then
 * `rejected_by_human` for a reject; else accept, confirmed by the approver at `now`. This is all
 * that is asked again of an approval that already took its confirmation and is delivered again:
 * who approved, with what permission and in time was settled when it took.
 */
export function checkApprovalContent(
  facts: ApprovalContentFacts,
): Decision<{ readonly confirmedBy: string; readonly confirmedAt: string }, 'confirmation'> {
  const { pending, approver, now } = facts;
  const id = `confirmation ${pending.confirmationId}`;
  if (facts.approvalDigest !== pending.digest) {
    return reject(
      'content_changed',
      undefined,
      `${id}: approval names digest ${facts.approvalDigest}, pending is ${pending.digest}`,
    );
  }
  if (facts.liveDigest !== pending.digest) {
    return reject(
      'content_changed',
      undefined,
      `${id}: live digest ${facts.liveDigest} differs from pending ${pending.digest}`,
    );
  }
  if (facts.decision === 'reject') return rejectedByHuman(id, approver, facts.reason);
  return accept({ confirmedBy: approver.subject, confirmedAt: now.toISOString() });
}

/**
 * A person's rejection. With their reason, the model reads it ("A person rejected this call:
 * …"), so it can change the call rather than ask again; the audit detail keeps it, quoted.
 */
function rejectedByHuman(id: string, approver: Principal, reason: string | undefined) {
  const detail = `${id} rejected by ${approver.subject}`;
  if (reason === undefined) return reject('rejected_by_human', undefined, detail);
  const said = `A person rejected this call: ${reason}`;
  return reject('rejected_by_human', said, `${detail}: ${JSON.stringify(reason)}`);
}

function approverRefusal(facts: ApprovalFacts, id: string) {
  const { approver, pending, approverAuthorized } = facts;
  if (approver.tenant !== pending.tenant) {
    return reject(
      'approver_not_authorized',
      undefined,
      `${id}: approver ${approver.subject} of tenant ${approver.tenant} for tenant ${pending.tenant}`,
    );
  }
  if (!approverAuthorized.ok) {
    return reject(
      'approver_not_authorized',
      undefined,
      `${id}: approver ${approver.subject}: ${approverAuthorized.internalDetail}`,
    );
  }
  return undefined;
}
