/**
 * The closing table: this run's audit events, read back from the audit topic over the run's time
 * window, counted by rung (the field `stage`), code and kind, the rungs in ladder order.
 */
import { readTopicWindow, type Bus, type Codec } from '@toolgate/platform';
import {
  formatAuditTable,
  RUNGS,
  summarizeAudit,
  type AuditDimension,
  type AuditEvent,
  type AuditRow,
  type Rung,
} from '@toolgate/shared';

/** The table's columns. */
export const TABLE_DIMENSIONS: readonly AuditDimension[] = ['stage', 'code', 'kind'];

/** Which events belong to this run. */
export interface RunFilter {
  /** Every run id of this demo run starts with it. */
  readonly runIdPrefix: string;
  /** Confirmations this run asked for (approval refusals by another tenant carry no run id). */
  readonly confirmationIds: ReadonlySet<string>;
}

/** Reads the audit events of the window from `sinceMs` that belong to the run. */
export async function readRunAudit(
  bus: Bus,
  codec: Codec,
  options: { readonly topic: string; readonly sinceMs: number; readonly groupPrefix: string },
  filter: RunFilter,
): Promise<AuditEvent[]> {
  const events: AuditEvent[] = [];
  await readTopicWindow(bus, codec, {
    ...options,
    onRecord: (record) => {
      const event = record.value as AuditEvent | undefined;
      if (event !== undefined && belongs(event, filter)) events.push(event);
    },
  });
  return events;
}

/** True for an event of this run. */
export function belongs(
  event: Pick<AuditEvent, 'runId' | 'confirmationId'>,
  filter: RunFilter,
): boolean {
  return (
    (event.runId ?? '').startsWith(filter.runIdPrefix) ||
    (event.confirmationId !== null && filter.confirmationIds.has(event.confirmationId))
  );
}

/** The rows of `events` by {@link TABLE_DIMENSIONS}, rungs in ladder order, then most frequent. */
export function ladderRows(events: readonly AuditEvent[]): AuditRow[] {
  const rank = (row: AuditRow) => RUNGS.indexOf(row.values.stage as Rung);
  return summarizeAudit(events, TABLE_DIMENSIONS)
    .map((row, order) => ({ row, order }))
    .sort((a, b) => rank(a.row) - rank(b.row) || a.order - b.order)
    .map(({ row }) => row);
}

/** The table as text. */
export function auditTable(events: readonly AuditEvent[]): string {
  return formatAuditTable(ladderRows(events), TABLE_DIMENSIONS);
}
