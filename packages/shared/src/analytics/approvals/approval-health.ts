/**
 * Approval health from the audit topic: how many calls were parked for a person, what became of
 * them (approved, rejected, expired, ended because what was approved changed) and how long people
 * took to decide. The parking event and the decision are paired by tenant and confirmation id.
 */
import type { AuditEvent } from '../../messages/audit-event.js';

/** A step of a confirmation's life that an audit event records. */
export type ApprovalStepKind = 'parked' | 'approved' | 'rejected' | 'expired' | 'changed';

/** The fields of an audit event that say which approval step it records. */
export type ApprovalEventFields = Pick<
  AuditEvent,
  'kind' | 'stage' | 'code' | 'outcome' | 'tenant' | 'confirmationId'
>;

/** One approval step, as kept. */
export interface ApprovalStep {
  readonly kind: ApprovalStepKind;
  /** Event time, ms since the epoch. */
  readonly atMs: number;
  readonly tenant: string | null;
  /** ms from parking to a person's decision; null when not a person's decision or not paired. */
  readonly decideMs: number | null;
}

/** What became of confirmations over a span, and how long people took. */
export interface ApprovalTally {
  readonly parked: number;
  readonly approved: number;
  readonly rejected: number;
  readonly expired: number;
  readonly changed: number;
  /** approved / (approved + rejected + expired + changed); null when none ended. */
  readonly approvalRate: number | null;
  /** Median ms from parking to a person's decision; null when none was paired. */
  readonly medianDecideMs: number | null;
}

/**
 * The approval step `event` records, or undefined. Parked: the confirm stage's
 * `pending_confirmation`. Approved: `cleared` with a confirmation id (a call that needed none has
 * none). Expired: the sweeper's `expired`. Rejected and changed: a confirmation-rung refusal
 * `rejected_by_human` or `content_changed` that ended the call; a `content_changed` that named a
 * stale card ends nothing (no outcome), and the confirmation keeps waiting.
 */
export function approvalStepOf(event: ApprovalEventFields): ApprovalStepKind | undefined {
  if (event.confirmationId === null) return undefined;
  if (event.kind === 'pending_confirmation') return 'parked';
  if (event.kind === 'cleared') return 'approved';
  if (event.kind === 'expired') return 'expired';
  if (event.kind !== 'rejected' || event.stage !== 'confirmation' || event.outcome === null) {
    return undefined;
  }
  if (event.code === 'rejected_by_human') return 'rejected';
  return event.code === 'content_changed' ? 'changed' : undefined;
}

/** Whether a step is a person's decision: an approval or a rejection, or an approval of a changed card. */
export function isPersonsDecision(kind: ApprovalStepKind): boolean {
  return kind === 'approved' || kind === 'rejected' || kind === 'changed';
}

/** The tally of the steps whose event time is in `[sinceMs, untilMs)`. */
export function approvalTally(
  steps: Iterable<ApprovalStep>,
  span: { readonly sinceMs: number; readonly untilMs: number },
): ApprovalTally {
  const counts = { parked: 0, approved: 0, rejected: 0, expired: 0, changed: 0 };
  const decideMs: number[] = [];
  for (const step of steps) {
    if (step.atMs < span.sinceMs || step.atMs >= span.untilMs) continue;
    counts[step.kind] += 1;
    if (step.decideMs !== null) decideMs.push(step.decideMs);
  }
  const ended = counts.approved + counts.rejected + counts.expired + counts.changed;
  return {
    ...counts,
    approvalRate: ended === 0 ? null : counts.approved / ended,
    medianDecideMs: median(decideMs),
  };
}

/** The median, the mean of the middle two for an even count, rounded to a ms; null for none. */
function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  const upper = sorted[middle]!;
  return sorted.length % 2 === 1 ? upper : Math.round((sorted[middle - 1]! + upper) / 2);
}
