/**
 * Counting audit events read back from the topic: which ones are refusals, which values are audit
 * events at all, and the dimensions an operator may group by. Pure: the caller reads the topic.
 */
import {
  AUDIT_DIMENSIONS,
  isRefusal,
  summarizeAudit,
  type AuditDimension,
  type AuditRow,
  type SummarizedEvent,
} from '@toolgate/shared';
import { CliError, EXIT } from './cli-error.js';

/** Which events a tally counts: refusals only (the default), or every event. */
export type AuditInclude = 'refusals' | 'all';

/** What {@link tallyAudit} found. */
export interface AuditTally {
  readonly rows: AuditRow[];
  /** Events counted (after the filter, each `eventId` once). */
  readonly counted: number;
  /** Values that were not audit events (undecodable or of another shape); never counted. */
  readonly skipped: number;
}

/** Groups the audit events among `values` by `by` and counts them (see `summarizeAudit`). */
export function tallyAudit(
  values: Iterable<unknown>,
  by: readonly AuditDimension[],
  include: AuditInclude,
): AuditTally {
  const events: SummarizedEvent[] = [];
  let skipped = 0;
  for (const value of values) {
    if (!isAuditEvent(value)) skipped += 1;
    else if (include === 'all' || isRefusal(value)) events.push(value);
  }
  const rows = summarizeAudit(events, by);
  return { rows, counted: rows.reduce((n, r) => n + r.count, 0), skipped };
}

function isAuditEvent(value: unknown): value is SummarizedEvent {
  if (typeof value !== 'object' || value === null) return false;
  const e = value as Record<string, unknown>;
  const nullableString = (k: string) => e[k] === null || typeof e[k] === 'string';
  return (
    typeof e['eventId'] === 'string' &&
    typeof e['kind'] === 'string' &&
    typeof e['stage'] === 'string' &&
    ['code', 'disposition', 'outcome', 'tool', 'tenant'].every(nullableString)
  );
}

/**
 * `--by` text (`stage,code,tool`) as dimensions.
 *
 * @throws CliError (usage) for an empty list, an unknown dimension or one named twice.
 */
export function parseDimensions(text: string): AuditDimension[] {
  const names = text.split(',').map((d) => d.trim());
  const unknown = names.filter((d) => !(AUDIT_DIMENSIONS as readonly string[]).includes(d));
  if (unknown.length > 0 || names.length === 0) {
    throw new CliError(
      `--by ${JSON.stringify(text)}: unknown ${unknown.map((d) => JSON.stringify(d)).join(', ')}; choose from ${AUDIT_DIMENSIONS.join(', ')}`,
      EXIT.usage,
    );
  }
  if (new Set(names).size !== names.length) {
    throw new CliError(`--by ${JSON.stringify(text)} names a dimension twice`, EXIT.usage);
  }
  return names as AuditDimension[];
}
