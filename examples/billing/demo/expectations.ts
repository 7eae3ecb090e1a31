/**
 * What the scripted workload expects, and how what happened is compared with it: each proposal's
 * terminal observation, the audit events that must exist for it, and whether every rung of the
 * ladder refused something. Pure: the demo gathers observations and audit events, then asks.
 */
import {
  RUNGS,
  type AuditEvent,
  type Observation,
  type Outcome,
  type Rung,
} from '@toolgate/shared';

/** The terminal observation a proposal should get. */
export interface Expected {
  readonly outcome: Outcome;
  /** The rung that refused or reported (absent: a plain result). */
  readonly stage?: Rung;
  readonly code?: string;
  /** True when the observation must re-issue an earlier outcome. */
  readonly replay?: boolean;
}

/** One proposal of the workload: what was expected and what came back. */
export interface Step {
  readonly scenario: string;
  readonly label: string;
  readonly proposalId: string;
  readonly expected: Expected;
  readonly observed?: Observation;
  /** Why no observation came back (a timeout, a client error). */
  readonly error?: string;
}

/** A check of the world or of the audit stream that is not one proposal's observation. */
export interface Check {
  readonly scenario: string;
  readonly label: string;
  readonly ok: boolean;
  readonly detail: string;
}

/** The audit fields an expected event is matched on. */
export type AuditMatch = Partial<
  Pick<AuditEvent, 'kind' | 'proposalId' | 'confirmationId' | 'decidedBy' | 'stage' | 'code'>
>;

/** An audit event that must be found. */
export interface AuditExpectation {
  readonly scenario: string;
  readonly label: string;
  readonly match: AuditMatch;
}

/** Why `step` differs from what was expected, or undefined when it does not. */
export function stepMismatch(step: Step): string | undefined {
  const { observed, expected } = step;
  if (observed === undefined) return `no observation (${step.error ?? 'none arrived'})`;
  const got = describe({
    outcome: observed.outcome,
    ...(observed.stage === undefined ? {} : { stage: observed.stage }),
    ...(observed.code === undefined ? {} : { code: observed.code }),
    ...(observed.replay === true ? { replay: true } : {}),
  });
  const want = describe(expected);
  return got === want ? undefined : `expected ${want}, got ${got}`;
}

/** "outcome stage/code (replay)", for expectations and observations alike. */
export function describe(e: Expected): string {
  const where = e.stage === undefined ? '' : ` ${e.stage}/${e.code ?? '-'}`;
  return `${e.outcome}${where}${e.replay === true ? ' (replay)' : ''}`;
}

/** The audit events each step implies: its refusal, its replay or its plain result. */
export function auditExpectationsOf(steps: readonly Step[]): AuditExpectation[] {
  return steps.map(({ scenario, label, proposalId, expected }) => {
    const match: AuditMatch =
      expected.replay === true
        ? { proposalId, kind: 'replay' }
        : expected.stage !== undefined
          ? { proposalId, stage: expected.stage, code: expected.code as AuditEvent['code'] }
          : { proposalId, kind: 'result', code: null };
    return { scenario, label, match };
  });
}

/** The expectations no event in `events` meets. */
export function missingAudit(
  expectations: readonly AuditExpectation[],
  events: readonly AuditEvent[],
): AuditExpectation[] {
  return expectations.filter(
    (x) =>
      !events.some((e) =>
        Object.entries(x.match).every(([k, v]) => e[k as keyof AuditMatch] === v),
      ),
  );
}

/** True for an event that records a refusal (or a reported failure) rather than a pass. */
export function isRefusal(e: Pick<AuditEvent, 'kind' | 'code'>): boolean {
  return e.code !== null && e.kind !== 'pending_confirmation';
}

/** The rungs with no refusal among `events`, in ladder order. */
export function rungsNeverRefused(
  events: readonly Pick<AuditEvent, 'kind' | 'code' | 'stage'>[],
): Rung[] {
  const refused = new Set(events.filter(isRefusal).map((e) => e.stage));
  return RUNGS.filter((s) => !refused.has(s));
}
