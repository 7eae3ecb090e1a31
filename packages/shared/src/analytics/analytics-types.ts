/**
 * The shapes the analytics service's parts share: window sizes, the alert record and the engine
 * that raises alerts, and the read-only view its HTTP API and metrics serve.
 */
import type { AuditEvent } from '../messages/audit-event.js';

/** The tumbling windows counted, by name, with their length in ms. */
export const WINDOW_SIZES = { minute: 60_000, hour: 3_600_000 } as const;

/** A window size's name. */
export type WindowSize = keyof typeof WINDOW_SIZES;

/** Where an audit event was read: its own partition and offset on the audit topic. */
export interface AuditPosition {
  readonly partition: number;
  /** Kafka offset as a decimal string. */
  readonly offset: string;
}

/** What an alert is about. */
export interface AlertSubject {
  /** `run`, `principal`, `tenant`, or `gate` for what concerns the installation as a whole. */
  readonly kind: 'run' | 'principal' | 'tenant' | 'gate';
  /** The subject's tenant; null when unknown (an unauthenticated proposal) or for `gate`. */
  readonly tenant: string | null;
  /** The run id, the principal's subject, the tenant, or the name of what `gate` concerns. */
  readonly id: string;
}

/** One alert, as written to the alerts topic (key: rule and subject). */
export interface Alert {
  /** Deterministic: the same rule, subject and window give the same id. */
  readonly alertId: string;
  /** The rule's name, e.g. `authorization_probing`. */
  readonly rule: string;
  readonly subject: AlertSubject;
  /** The event-time span the rule looked at (ISO-8601 instants). */
  readonly window: { readonly start: string; readonly end: string };
  /** What was counted, by name (e.g. `{ refusals: 7 }`, `{ distinctObjects: 12 }`). */
  readonly counts: Readonly<Record<string, number>>;
  /** The threshold the counts crossed, by the same names. */
  readonly threshold: Readonly<Record<string, number>>;
  /** `alert`, or `log` for a rule in log-only mode (written and logged, never paged). */
  readonly mode: 'alert' | 'log';
  /** The audit events behind it (at most a configured number, oldest first). */
  readonly evidence: readonly { readonly eventId: string; readonly position: AuditPosition }[];
  /** Event time of the event that raised it (ISO-8601). */
  readonly raisedAt: string;
}

/**
 * Raises alerts from audit events. Pure and in memory; the service feeds it every event in
 * partition order and ticks it with the clock, and writes what it returns.
 */
export interface AlertEngine {
  /** Takes one event; returns the alerts it raises now (none when deduplicated). */
  observe(event: AuditEvent, position: AuditPosition): readonly Alert[];
  /** Tells the engine the time is `nowMs` (ms since the epoch); returns alerts that time raises. */
  tick(nowMs: number): readonly Alert[];
}
