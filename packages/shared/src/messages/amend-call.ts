/**
 * Approving with changes: a person who may decide a waiting confirmation rejects the card they saw
 * and proposes the same call with other arguments. The changed call is never applied to the
 * digest someone approved: it is a new proposal, proposed by the person who changed it, that climbs
 * every rung and waits for its own approval (under a four-eyes policy, not theirs).
 */
import { canonicalSha256, sha256Hex } from '../idempotency/canonical-sha256.js';
import { REASON_RULE, reasonOf, type Approval } from './approval.js';
import { MAX_REJECTION_REASON_CHARS, type AmendBody } from './approval-views.js';
import type { Proposal } from '../types.js';
import type { PendingConfirmation } from '../confirmation/check-approval.js';

/** Hex digits of the amended proposal's id: 128 bits, as unguessable as a random one. */
const AMENDED_ID_HEX = 32;

const DIGEST = /^[0-9a-f]{64}$/;

/** An amend as the person sent it, or why it cannot be read. */
export type ReadAmend =
  | { readonly ok: true; readonly value: AmendBody }
  | { readonly ok: false; readonly code: string; readonly message: string };

/**
 * Reads the body of `POST /confirmations/:id/amend`: `digest` (64 lowercase hex digits), `args` (a
 * JSON object; its size is bounded by the HTTP body limit) and an optional `reason`, by the rule
 * of a rejection's reason ({@link reasonOf}), kept trimmed.
 */
export function readAmendBody(body: unknown): ReadAmend {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return refused('invalid_amend', 'The body must be a JSON object: {digest, args, reason?}.');
  }
  const { digest, args: given, reason } = body as Record<string, unknown>;
  if (typeof digest !== 'string' || !DIGEST.test(digest)) {
    return refused('invalid_amend', 'digest must be the card’s digest: 64 lowercase hex digits.');
  }
  if (typeof given !== 'object' || given === null || Array.isArray(given)) {
    return refused('invalid_amend', 'args must be a JSON object: the changed arguments.');
  }
  const args = given as Readonly<Record<string, unknown>>;
  // The same rule as a rejection's own reason: this one becomes part of one.
  const said = reasonOf(reason);
  if (said === false) return refused('invalid_reason', REASON_RULE);
  return { ok: true, value: { digest, args, ...(said === undefined ? {} : { reason: said }) } };
}

/** True when `args` differ from the waiting call's arguments (key order aside). */
export function changesArguments(
  pending: PendingConfirmation,
  args: Readonly<Record<string, unknown>>,
): boolean {
  return canonicalSha256(args) !== canonicalSha256(pending.args);
}

/**
 * The id of the proposal that carries the changed call: `amend_` and 32 hex digits of a SHA-256
 * over the confirmation id and the canonical digest of `args`, so that the same change sent twice
 * (a repeated click) is the same proposal, which the gate answers once.
 *
 * @throws TypeError when `args` holds what JSON cannot carry (a lone surrogate); the body reader
 *   of the HTTP API does not produce such values.
 */
export function amendedProposalId(
  confirmationId: string,
  args: Readonly<Record<string, unknown>>,
): string {
  const digest = sha256Hex(`${confirmationId}\n${canonicalSha256(args)}`);
  return `amend_${digest.slice(0, AMENDED_ID_HEX)}`;
}

/**
 * The reason the original is rejected with, as its agent reads it: who changed the call and which
 * proposal carries it, then the person's own reason when they gave one. Undefined when the whole
 * would be longer than {@link MAX_REJECTION_REASON_CHARS}.
 */
export function amendReason(
  subject: string,
  proposalId: string,
  given?: string,
): string | undefined {
  const said = `Changed by ${subject}: replaced by proposal ${proposalId}`;
  const reason = given === undefined ? said : `${said}. ${given.trim()}`;
  return reason.length > MAX_REJECTION_REASON_CHARS ? undefined : reason;
}

/**
 * The proposal that carries the changed call: the original's tool, run and request, `args`
 * instead of its arguments, attempt 0. Its format is `mcp` (a JSON-RPC `tools/call` request),
 * whose arguments are structured JSON, so they reach validate as they were sent, with no text to
 * parse; the call id is the proposal id.
 */
export function amendedProposal(
  pending: PendingConfirmation,
  args: Readonly<Record<string, unknown>>,
  proposalId: string,
): Proposal {
  return {
    proposalId,
    runId: pending.runId,
    requestId: pending.requestId,
    format: 'mcp',
    finishReason: null,
    attempt: 0,
    repairOf: null,
    call: {
      jsonrpc: '2.0',
      id: proposalId,
      method: 'tools/call',
      params: { name: pending.tool, arguments: args },
    },
  };
}

/**
 * What the confirm stage keeps of an amend while its rejection travels: who changed the call, on
 * which digest, with which reason, and where the changed call went. The rejection it names is
 * recognised by {@link isAmendRejection}.
 */
export interface AmendNote {
  readonly by: string;
  readonly digest: string;
  readonly reason: string;
  readonly replacedBy: { readonly proposalId: string; readonly runId: string };
}

/**
 * True when `approval` is the rejection an amend sent: a reject by the person who changed the
 * call, of the digest they changed. Any other decision of the confirmation is not an amend,
 * whatever note is kept for it.
 */
export function isAmendRejection(
  note: AmendNote | undefined,
  approval: Approval,
  approver: string,
): note is AmendNote {
  return (
    note !== undefined &&
    approval.decision === 'reject' &&
    approval.digest === note.digest &&
    approver === note.by
  );
}

function refused(code: string, message: string): ReadAmend {
  return { ok: false, code, message };
}
