/**
 * The part of an audit event that windows count, checked: a value read from the audit topic is
 * counted only when it has the fields a decision needs, and refused with a reason otherwise.
 */
import type { AuditEvent } from '../../messages/audit-event.js';

/** The fields of an audit event the windows read. */
export type WindowedEvent = Pick<
  AuditEvent,
  | 'eventId'
  | 'kind'
  | 'at'
  | 'stage'
  | 'code'
  | 'disposition'
  | 'tenant'
  | 'tool'
  | 'subject'
  | 'runId'
>;

/** A checked event and its event time, or why the value is not one. */
export type WindowedEventCheck =
  | { readonly ok: true; readonly event: WindowedEvent; readonly atMs: number }
  | { readonly ok: false; readonly reason: string };

const NULLABLE = ['code', 'disposition', 'tenant', 'tool', 'subject', 'runId'] as const;

/**
 * Checks that `value` (a decoded audit record) is an audit event the windows can count: string
 * `eventId`, `kind`, `stage`, an ISO-8601 `at`, and the dimension fields string or null.
 */
export function windowedEventOf(value: unknown): WindowedEventCheck {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, reason: 'not a JSON object' };
  }
  const e = value as Record<string, unknown>;
  const missing = ['eventId', 'kind', 'stage', 'at'].filter((k) => typeof e[k] !== 'string');
  const wrong = NULLABLE.filter((k) => !(e[k] === null || typeof e[k] === 'string'));
  if (missing.length + wrong.length > 0) {
    return {
      ok: false,
      reason: `not an audit event (fields ${[...missing, ...wrong].join(', ')})`,
    };
  }
  const atMs = Date.parse(e['at'] as string);
  if (!Number.isFinite(atMs))
    return { ok: false, reason: `at ${JSON.stringify(e['at'])} is not a time` };
  return { ok: true, event: value as WindowedEvent, atMs };
}
