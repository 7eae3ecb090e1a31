/**
 * Counts audit events by the dimensions an operator asks for (stage, code, tool, tenant, kind,
 * outcome; `stage` is the audit field, which names the rung), for `toolgate stats` and the demo's
 * closing table. Pure: the caller reads the topic.
 */
import type { AuditEvent } from '../messages/index.js';

/** The fields events can be grouped by. */
export const AUDIT_DIMENSIONS = [
  'kind',
  'stage',
  'code',
  'disposition',
  'outcome',
  'tool',
  'tenant',
] as const;

/** One grouping dimension. */
export type AuditDimension = (typeof AUDIT_DIMENSIONS)[number];

/** One row of a summary: the values of the chosen dimensions and how many events had them. */
export interface AuditRow {
  readonly values: Readonly<Partial<Record<AuditDimension, string>>>;
  readonly count: number;
}

/** The subset of an audit event a summary reads. */
export type SummarizedEvent = Pick<AuditEvent, 'eventId' | AuditDimension>;

/**
 * A refusal is an event that carries a code, except a pending confirmation (it waits, it does not
 * refuse): rejections of every rung, quarantined input, internal errors, expired confirmations,
 * unknown outcomes, and results the result rung withheld or the tool failed. `toolgate stats` and
 * the analytics service's per-principal and per-run counts both count by it.
 */
export function isRefusal(event: Pick<SummarizedEvent, 'kind' | 'code'>): boolean {
  return event.code !== null && event.kind !== 'pending_confirmation';
}

/**
 * Groups `events` by `by` (in that order) and counts them, most frequent first, ties in key order.
 * Events with the same `eventId` (a redelivered decision) count once. Missing values show as `-`.
 */
export function summarizeAudit(
  events: Iterable<SummarizedEvent>,
  by: readonly AuditDimension[],
): AuditRow[] {
  const seen = new Set<string>();
  const counts = new Map<string, AuditRow>();
  for (const event of events) {
    if (seen.has(event.eventId)) continue;
    seen.add(event.eventId);
    const values = Object.fromEntries(by.map((d) => [d, event[d] ?? '-'])) as Record<
      AuditDimension,
      string
    >;
    const key = JSON.stringify(by.map((d) => values[d]));
    const row = counts.get(key);
    counts.set(key, { values, count: (row?.count ?? 0) + 1 });
  }
  return [...counts.entries()]
    .sort(([ka, a], [kb, b]) => b.count - a.count || ka.localeCompare(kb))
    .map(([, row]) => row);
}

/** Renders rows as a plain-text table with a header and a total line. */
export function formatAuditTable(rows: readonly AuditRow[], by: readonly AuditDimension[]): string {
  const header = [...by, 'count'];
  const body = rows.map((r) => [...by.map((d) => r.values[d] ?? '-'), String(r.count)]);
  const total = [
    'total',
    ...by.slice(1).map(() => ''),
    String(rows.reduce((n, r) => n + r.count, 0)),
  ];
  const all = [header, ...body, total];
  const widths = header.map((_, i) => Math.max(...all.map((line) => (line[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  const rule = widths.map((w) => '-'.repeat(w)).join('  ');
  return [line(header), rule, ...body.map(line), rule, line(total)].join('\n');
}
