/** Real audit events for the alert tests, built by `auditEvent` as the stages build them. */
import type { AnyCode, Rung } from '../../catalogue.js';
import { rejecterFor } from '../../decision.js';
import { auditEvent, type AuditEvent, type AuditInput } from '../../messages/audit-event.js';
import type { AuditKind } from '../../messages/audit-kinds.js';
import type { Alert, AlertEngine } from '../analytics-types.js';

/** The start of every test's event time. */
export const T0 = Date.parse('2026-03-01T09:00:00.000Z');
/** One minute, in ms. */
export const MIN = 60_000;

let serial = 0;

/** Who an event is about, and when (ms since the epoch). */
export interface EventFacts {
  readonly atMs: number;
  readonly tenant?: string;
  readonly subject?: string;
  readonly runId?: string;
  readonly objectIds?: readonly string[];
}

/** A refusal by `rung` with `code`, of a distinct proposal each time. */
export function refusal<R extends Rung>(rung: R, code: AnyCode, facts: EventFacts): AuditEvent {
  const rejected = rejecterFor(rung)(code as never, undefined, 'test');
  return auditEvent(
    {
      kind: 'rejected',
      rejected,
      ...idsOf(facts),
      ...(facts.objectIds === undefined
        ? {}
        : { objects: facts.objectIds.map((id) => ({ type: 'Invoice', id })) }),
    },
    new Date(facts.atMs),
  );
}

/** An event of a kind with no refusal of its own (`quarantined` gets one byte). */
export function ofKind(
  kind: Exclude<AuditKind, 'rejected' | 'result' | 'replay'>,
  facts: EventFacts,
): AuditEvent {
  const ids = idsOf(facts);
  const input: AuditInput =
    kind === 'quarantined'
      ? { kind, raw: new Uint8Array([serial % 256]), ...ids }
      : { kind, ...ids };
  return auditEvent(input, new Date(facts.atMs));
}

/** An authorization refusal of `runId` by `subject` of tenant `acme` at `atMs`. */
export function denied(atMs: number, runId = 'run-1', subject = 'alice'): AuditEvent {
  return refusal('authorization', 'not_authorized', { atMs, runId, subject, tenant: 'acme' });
}

/** Every alert the engine raises for `events`, in order, each at a distinct offset. */
export function feed(engine: AlertEngine, events: readonly AuditEvent[]): Alert[] {
  return events.flatMap((event) => engine.observe(event, { partition: 0, offset: next() }));
}

function next(): string {
  serial += 1;
  return String(serial);
}

function idsOf(facts: EventFacts) {
  serial += 1;
  return {
    proposalId: `p-${serial}`,
    ...(facts.tenant === undefined ? {} : { tenant: facts.tenant }),
    ...(facts.subject === undefined ? {} : { subject: facts.subject }),
    ...(facts.runId === undefined ? {} : { runId: facts.runId }),
  };
}
