/**
 * The vocabulary of audit events: one kind per decision a stage records, refusals and accepted
 * ends alike, so that outcomes can be counted by kind, rung and code from the audit topic alone.
 */
import type { AnyCode, Disposition, Rung } from '../catalogue.js';
import type { Outcome } from '../types.js';

/** What an audit event of one kind records by default. */
export interface AuditKindSpec {
  /** The rung the event is filed under; null for `rejected`, which takes the refusal's. */
  readonly stage: Rung | null;
  /** The code, when the kind has one of its own; a refusal's code replaces it. */
  readonly code: AnyCode | null;
  /** The decision's disposition; null when the kind only passes the proposal on. */
  readonly disposition: Disposition | null;
  /** The outcome of the observation published with the event; null when none is published. */
  readonly outcome: Outcome | null;
  /** What happened, for people reading the audit stream. */
  readonly meaning: string;
}

const kind = <const R extends Rung | null, const C extends AnyCode | null>(
  stage: R,
  code: C,
  disposition: Disposition | null,
  outcome: Outcome | null,
  meaning: string,
) => ({ stage, code, disposition, outcome, meaning });

/**
 * Every audit kind. Rung (field `stage`), code, disposition and outcome are the defaults the event carries:
 * `rejected` takes stage, code and disposition from the refusal; `result` takes stage and code
 * from a result-rung refusal or a tool error when there was one; `replay` takes its outcome from
 * the stored outcome it re-issued.
 */
export const AUDIT_KINDS = {
  rejected: kind(
    null,
    null,
    null,
    'rejected',
    "A rung refused the proposal; stage, code and disposition are the refusal's.",
  ),
  quarantined: kind(
    'representation',
    'unsupported_format',
    'deny',
    null,
    'Undecodable bytes were kept on the quarantine topic; raw gives their hash and size.',
  ),
  internal_error: kind(
    'execution',
    'internal_error',
    'deny',
    'rejected',
    'A non-retriable fault while handling the proposal; it got a terminal observation.',
  ),
  validated: kind(
    'semantics',
    null,
    null,
    null,
    'The validate stage passed the proposal on: authentication through semantics accepted.',
  ),
  authorized: kind(
    'limits',
    null,
    null,
    null,
    'The authorize stage passed the proposal on: resolution through limits accepted.',
  ),
  pending_confirmation: kind(
    'confirmation',
    'pending',
    'confirm',
    'pending_confirmation',
    'A confirmation request was published; the call waits for a person.',
  ),
  cleared: kind(
    'confirmation',
    null,
    null,
    null,
    'The call needed no confirmation, or a person approved it (confirmedBy, confirmedAt).',
  ),
  command_issued: kind(
    'idempotency',
    null,
    'execute',
    null,
    'The idempotency key was claimed and the command published to the tool.',
  ),
  replay: kind(
    'idempotency',
    null,
    'execute',
    null,
    'A finished call was proposed again: its stored outcome was re-issued, no command published.',
  ),
  result: kind(
    'result',
    null,
    'execute',
    'result',
    'A tool result ended the call: shown (no code), refused by the result rung, a tool error, or unknown (the tool cannot tell whether it acted: outcome unknown_outcome).',
  ),
  unknown_outcome: kind(
    'execution',
    'timeout_outcome_unknown',
    'deny',
    'unknown_outcome',
    'The tool did not answer by its deadline; whether it acted is unknown.',
  ),
  expired: kind(
    'confirmation',
    'expired',
    'deny',
    'expired',
    'Nobody approved in time; the pending confirmation was swept.',
  ),
  late_result: kind(
    'execution',
    null,
    null,
    null,
    'A result arrived after its deadline ended the call: recorded under the key, not shown again.',
  ),
  unmatched_result: kind(
    'execution',
    null,
    null,
    null,
    'A result named no pending command of this gate, or named one but with another idempotency key or run; dropped, nothing changed.',
  ),
  forged_result: kind(
    'execution',
    null,
    null,
    null,
    "A result for a pending command whose proof does not verify with the key of that command's tool: written by something that cannot answer for the tool; dropped, nothing changed.",
  ),
} as const satisfies Record<string, AuditKindSpec>;

/** One audit kind. */
export type AuditKind = keyof typeof AUDIT_KINDS;
