/** The approval a person gives or refuses, on `approvals` (DESIGN §2). */
import { REJECTION_CODES } from '../catalogue.js';
import { accept, rejecterFor, type Decision } from '../decision.js';
import { MAX_REJECTION_REASON_CHARS } from './approval-views.js';

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
  /**
   * Why, in the approver's words: for a rejection, the agent's observation carries it, so the
   * model learns what to change instead of asking again. Trimmed, 1 to
   * {@link MAX_REJECTION_REASON_CHARS} characters, no control characters.
   */
  readonly reason?: string;
}

/**
 * The approval of `decision` on the confirmation `confirmationId`, as the approver saw `digest`,
 * with the approver's `reason` when there is one.
 */
export function approval(
  confirmationId: string,
  decision: ApprovalDecision,
  digest: string,
  reason?: string,
): Approval {
  return { confirmationId, decision, digest, ...(reason === undefined ? {} : { reason }) };
}

/** Longest confirmation id an approval may name, in UTF-16 code units. */
export const MAX_CONFIRMATION_ID_CHARS = 200;

const DIGEST = /^[0-9a-f]{64}$/;

/**
 * What a reason may not hold: control characters (line breaks included), bidirectional controls
 * that would make the agent's observation read otherwise than it is written, and lone surrogates
 * that JSON readers refuse.
 */
const UNFIT_IN_REASON = /[\p{Cc}\p{Cs}\u202A-\u202E\u2066-\u2069]/u;

/** What the approver is told when a reason is refused. */
export const REASON_RULE = `A reason is 1 to ${MAX_REJECTION_REASON_CHARS} characters of text, without control characters.`;

const reject = rejecterFor('confirmation');

/**
 * Reads an approval event's value (decoded JSON): a `confirmationId` (non-empty, at most
 * {@link MAX_CONFIRMATION_ID_CHARS}), a `decision` of {@link APPROVAL_DECISIONS}, a `digest` of
 * 64 lowercase hex characters and an optional `reason` ({@link reasonOf}), kept trimmed. More
 * members are allowed (the topic's schema is open) and dropped. Anything else is
 * `confirmation/invalid_approval`; the detail names the fields, never their values, and so does
 * the public message when the reason is at fault.
 */
export function parseApproval(value: unknown): Decision<Approval, 'confirmation'> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return reject('invalid_approval', undefined, 'approval is not a JSON object');
  }
  const o = value as Record<string, unknown>;
  const { confirmationId: id, decision, digest } = o;
  const reason = reasonOf(o['reason']);
  const bad = [
    typeof id === 'string' && id !== '' && id.length <= MAX_CONFIRMATION_ID_CHARS
      ? undefined
      : 'confirmationId',
    (APPROVAL_DECISIONS as readonly unknown[]).includes(decision) ? undefined : 'decision',
    typeof digest === 'string' && DIGEST.test(digest) ? undefined : 'digest',
    reason === false ? 'reason' : undefined,
  ].filter((name): name is string => name !== undefined);
  if (bad.length > 0) {
    const detail = `approval has a missing or bad ${bad.join(', ')}`;
    return reject('invalid_approval', publicMessageFor(bad), detail);
  }
  const said = reason as string | undefined;
  return accept(approval(id as string, decision as ApprovalDecision, digest as string, said));
}

/**
 * An approval's `reason`: undefined when absent, the trimmed text when it is a string of 1 to
 * {@link MAX_REJECTION_REASON_CHARS} UTF-16 code units after trimming with no control character
 * ({@link UNFIT_IN_REASON}), else false. Too long is refused, never cut: a cut reason could say
 * the opposite of what was meant.
 */
export function reasonOf(value: unknown): string | undefined | false {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') return false;
  const trimmed = value.trim();
  const fits = trimmed !== '' && trimmed.length <= MAX_REJECTION_REASON_CHARS;
  return fits && !UNFIT_IN_REASON.test(trimmed) ? trimmed : false;
}

/** The catalogue's text for the approval's own fields, the reason's rule for the reason. */
function publicMessageFor(bad: readonly string[]): string {
  const own = bad.some((name) => name !== 'reason')
    ? [REJECTION_CODES.confirmation.invalid_approval.publicMessage]
    : [];
  return [...own, ...(bad.includes('reason') ? [REASON_RULE] : [])].join(' ');
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
