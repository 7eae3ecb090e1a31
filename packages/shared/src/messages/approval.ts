/** The approval a person gives or refuses, on `approvals` (DESIGN §2). */
import { accept, rejecterFor, type Decision } from '../decision.js';

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

/** Longest confirmation id an approval may name, in UTF-16 code units. */
export const MAX_CONFIRMATION_ID_CHARS = 200;

const DIGEST = /^[0-9a-f]{64}$/;

const reject = rejecterFor('confirmation');

/**
 * Reads an approval event's value (decoded JSON): a `confirmationId` (non-empty, at most
 * {@link MAX_CONFIRMATION_ID_CHARS}), a `decision` of {@link APPROVAL_DECISIONS} and a `digest` of
 * 64 lowercase hex characters. More members are allowed (the topic's schema is open) and dropped.
 * Anything else is `confirmation/invalid_approval`; the detail names the fields, never their
 * values.
 */
export function parseApproval(value: unknown): Decision<Approval, 'confirmation'> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return reject('invalid_approval', undefined, 'approval is not a JSON object');
  }
  const o = value as Record<string, unknown>;
  const { confirmationId: id, decision, digest } = o;
  const bad = [
    typeof id === 'string' && id !== '' && id.length <= MAX_CONFIRMATION_ID_CHARS
      ? undefined
      : 'confirmationId',
    (APPROVAL_DECISIONS as readonly unknown[]).includes(decision) ? undefined : 'decision',
    typeof digest === 'string' && DIGEST.test(digest) ? undefined : 'digest',
  ].filter((name): name is string => name !== undefined);
  if (bad.length > 0) {
    return reject('invalid_approval', undefined, `approval has a missing or bad ${bad.join(', ')}`);
  }
  return accept(approval(id as string, decision as ApprovalDecision, digest as string));
}

/**
 * The confirmation id an approval event names, when it names one readably (even if the approval
 * is otherwise malformed), so that its audit event can be filed under the pending call.
 */
export function namedConfirmationId(value: unknown): string | undefined {
  const id = (value as { confirmationId?: unknown } | null | undefined)?.confirmationId;
  return typeof id === 'string' && id !== '' && id.length <= MAX_CONFIRMATION_ID_CHARS
    ? id
    : undefined;
}
