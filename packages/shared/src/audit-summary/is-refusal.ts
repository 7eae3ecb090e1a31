/** Which audit events are refusals: what `toolgate stats`, the demo's summary and alerts count. */
import type { AuditEvent } from '../messages/audit-event.js';

/**
 * A refusal is an event that carries a code, except a pending confirmation (it waits, it does not
 * refuse): rejections of every rung, quarantined input, internal errors, expired confirmations,
 * unknown outcomes, and results the result rung withheld or the tool failed. `toolgate stats`, the
 * analytics service's windows and the alert rules all count by it.
 */
export function isRefusal(event: Pick<AuditEvent, 'kind' | 'code'>): boolean {
  return event.code !== null && event.kind !== 'pending_confirmation';
}
