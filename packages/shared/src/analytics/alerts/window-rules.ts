/**
 * The rules that count matching audit events per subject in a sliding window: which events each
 * one counts, for which subjects, and when the window crosses its threshold.
 */
import type { AnyCode } from '../../catalogue.js';
import type { AuditEvent } from '../../messages/audit-event.js';
import type { AlertSubject } from '../analytics-types.js';
import type { AlertRuleName, AlertRuleSettings, RuleSwitch } from './alert-rules.js';
import type { WindowTally } from './sliding-window.js';

/** What one event counts for under one rule: a subject, and its marks there. */
export interface Match {
  readonly subject: AlertSubject;
  readonly marks: readonly string[];
}

/** A window that crossed its threshold: what was counted and what it crossed. */
export interface Verdict {
  readonly counts: Readonly<Record<string, number>>;
  readonly threshold: Readonly<Record<string, number>>;
}

/** A sliding-window rule, as the engine runs it. */
export interface WindowRule {
  readonly name: AlertRuleName;
  readonly settings: RuleSwitch & { readonly windowMs: number };
  /** The subjects `event` counts for, with its marks; empty when the rule does not count it. */
  match(event: AuditEvent): readonly Match[];
  /** The verdict on a subject's window; undefined when it is at or below the threshold. */
  judge(window: WindowTally): Verdict | undefined;
}

/**
 * Authentication-rung codes that mean a session was missing, bad, expired or of a tenant the
 * gate does not serve. Forged and stale envelopes are `forgery`'s; unavailable session keys are an
 * outage of the identity provider, not something a caller did.
 */
export const INVALID_SESSION_CODES: readonly AnyCode[] = [
  'missing_session',
  'invalid_session',
  'expired_session',
  'unknown_tenant',
];

/**
 * What the audit topic records of a forgery: an internal envelope whose integrity tag does not
 * verify (`authentication/forged_envelope`), a genuine one published again after its lifetime
 * (`authentication/stale_envelope`), and a tool result whose proof does not verify (kind
 * `forged_result`). Forged commands are dropped by the tool workers and unsigned observations by
 * the agent clients, which count them (`toolgate_refused_forgeries_total`) but write no audit
 * event: those are alerted on from the metric, not here.
 */
export function forgeryOf(event: AuditEvent): string | undefined {
  if (event.kind === 'forged_result') return 'forged_result';
  if (event.stage !== 'authentication') return undefined;
  return event.code === 'forged_envelope' || event.code === 'stale_envelope'
    ? event.code
    : undefined;
}

/**
 * Limits-rung codes that stop a run for what it did itself: it called past its call ceiling, or it
 * kept sending calls the gate could not repair. Rate limits are a tenant's or a user's, not a run's.
 */
export const RUNAWAY_CODES: readonly AnyCode[] = ['run_call_limit', 'repair_budget_exhausted'];

/** The mark of an unhealthy approval outcome, or undefined. */
function approvalTroubleOf(event: AuditEvent): string | undefined {
  if (event.stage !== 'confirmation') return undefined;
  if (event.code === 'expired') return 'expired';
  if (event.code === 'content_changed') return 'contentChanged';
  return event.code === 'approver_not_authorized' ? 'approverRefused' : undefined;
}

const runOf = (e: AuditEvent): AlertSubject[] =>
  e.runId === null ? [] : [{ kind: 'run', tenant: e.tenant, id: e.runId }];
const principalOf = (e: AuditEvent): AlertSubject[] =>
  e.subject === null ? [] : [{ kind: 'principal', tenant: e.tenant, id: e.subject }];
/** The event's tenant, or the gate (under `what`) when the event names none. */
const tenantOrGate = (e: AuditEvent, what: string): AlertSubject =>
  e.tenant === null
    ? { kind: 'gate', tenant: null, id: what }
    : { kind: 'tenant', tenant: e.tenant, id: e.tenant };

/** Counts of each mark of `names` in the window, zero when absent. */
const markCounts = (window: WindowTally, names: readonly string[]) =>
  Object.fromEntries(names.map((n) => [n, window.marks.get(n) ?? 0]));

/** Every sliding-window rule with its settings. */
export function windowRules(settings: AlertRuleSettings): readonly WindowRule[] {
  const probing = settings.authorization_probing;
  const enumeration = settings.object_enumeration;
  const runaway = settings.runaway_run;
  const forgery = settings.forgery;
  const sessions = settings.invalid_sessions_burst;
  const quarantine = settings.quarantine_burst;
  const approvals = settings.approval_health;
  const over = (counted: number, threshold: number) => counted > threshold;
  return [
    {
      name: 'authorization_probing',
      settings: probing,
      match: (e) =>
        // `policy_error` is a policy that cannot be evaluated: it refuses every caller alike and
        // says nothing of the one refused (refusal_rate_jump sees it).
        e.stage === 'authorization' && e.code === 'not_authorized'
          ? [...runOf(e), ...principalOf(e)].map((subject) => ({ subject, marks: [] }))
          : [],
      judge: (w) =>
        over(w.total, probing.threshold)
          ? { counts: { refusals: w.total }, threshold: { refusals: probing.threshold } }
          : undefined,
    },
    {
      name: 'object_enumeration',
      settings: enumeration,
      match: (e) =>
        e.stage === 'resolution' && e.code === 'not_found'
          ? [...runOf(e), ...principalOf(e)].map((subject) => ({ subject, marks: e.objectIds }))
          : [],
      judge: (w) =>
        over(w.marks.size, enumeration.threshold)
          ? {
              counts: { distinctObjects: w.marks.size, refusals: w.total },
              threshold: { distinctObjects: enumeration.threshold },
            }
          : undefined,
    },
    {
      name: 'runaway_run',
      settings: runaway,
      match: (e) =>
        e.stage === 'limits' && e.code !== null && RUNAWAY_CODES.includes(e.code)
          ? runOf(e).map((subject) => ({ subject, marks: [e.code ?? ''] }))
          : [],
      judge: (w) =>
        over(w.total, runaway.threshold)
          ? {
              counts: { refusals: w.total, ...Object.fromEntries(w.marks) },
              threshold: { refusals: runaway.threshold },
            }
          : undefined,
    },
    {
      name: 'forgery',
      settings: forgery,
      match: (e) => {
        const what = forgeryOf(e);
        return what === undefined ? [] : [{ subject: tenantOrGate(e, 'integrity'), marks: [what] }];
      },
      judge: (w) =>
        over(w.total, forgery.threshold)
          ? {
              counts: { forgeries: w.total, ...Object.fromEntries(w.marks) },
              threshold: { forgeries: forgery.threshold },
            }
          : undefined,
    },
    {
      name: 'invalid_sessions_burst',
      settings: sessions,
      match: (e) =>
        e.stage === 'authentication' && e.code !== null && INVALID_SESSION_CODES.includes(e.code)
          ? [{ subject: tenantOrGate(e, 'sessions'), marks: [e.code] }]
          : [],
      judge: (w) =>
        over(w.total, sessions.threshold)
          ? {
              counts: { invalidSessions: w.total, ...Object.fromEntries(w.marks) },
              threshold: { invalidSessions: sessions.threshold },
            }
          : undefined,
    },
    {
      name: 'quarantine_burst',
      settings: quarantine,
      match: (e) =>
        e.kind === 'quarantined' ? [{ subject: tenantOrGate(e, 'quarantine'), marks: [] }] : [],
      judge: (w) =>
        over(w.total, quarantine.threshold)
          ? { counts: { quarantined: w.total }, threshold: { quarantined: quarantine.threshold } }
          : undefined,
    },
    {
      name: 'approval_health',
      settings: approvals,
      match: (e) => {
        const trouble = approvalTroubleOf(e);
        return trouble === undefined
          ? []
          : [{ subject: tenantOrGate(e, 'approvals'), marks: [trouble] }];
      },
      judge: (w) => {
        const threshold = {
          expired: approvals.expired,
          contentChanged: approvals.contentChanged,
          approverRefused: approvals.approverRefused,
        };
        const counts = markCounts(w, Object.keys(threshold));
        const crossed = Object.entries(threshold).some(([k, t]) => over(counts[k] ?? 0, t));
        return crossed ? { counts, threshold } : undefined;
      },
    },
  ];
}
