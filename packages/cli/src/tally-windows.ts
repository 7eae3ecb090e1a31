/**
 * Counting the analytics service's final window records (the refusal-stats topic) as `toolgate
 * stats` counts the audit topic: the same rows, read from windows already counted instead of
 * rescanning the audit trail. Pure: the caller reads the topic.
 */
import {
  WINDOW_SIZES,
  type AuditDimension,
  type AuditRow,
  type WindowRecordValue,
  type WindowSize,
} from '@toolgate/shared';
import { CliError, EXIT } from './cli-error.js';
import type { AuditInclude } from './tally-audit.js';

/** The dimensions the window records carry (`stage` is their `rung`). */
export const WINDOW_DIMENSIONS: readonly AuditDimension[] = [
  'tenant',
  'tool',
  'stage',
  'code',
  'disposition',
];

/** Which windows {@link tallyWindows} counts. */
export interface WindowSpan {
  readonly size: WindowSize;
  /** Windows starting at or after this, ms since the epoch. */
  readonly fromMs: number;
  /** Windows ending at or before this, ms since the epoch; default no bound. */
  readonly toMs?: number;
}

/** What {@link tallyWindows} found. */
export interface WindowTally {
  readonly rows: AuditRow[];
  /** Decisions counted (after the filter). */
  readonly counted: number;
  /** Distinct windows (start and partition) the counts came from. */
  readonly windows: number;
  /** Events counted late in those windows: in no window's counts. */
  readonly late: number;
}

/**
 * `--windows` text as a window size.
 *
 * @throws CliError (usage) for anything but `minute` or `hour`.
 */
export function parseWindowSize(text: string): WindowSize {
  if (text in WINDOW_SIZES) return text as WindowSize;
  throw new CliError(
    `--windows ${JSON.stringify(text)}: one of ${Object.keys(WINDOW_SIZES).join(', ')}`,
    EXIT.usage,
  );
}

/**
 * Sums the decision records of `span` among `records` (`[key, value]` in topic order: the latest
 * value of a key wins, as compaction keeps it) by `by`, refusals only unless `include` is `all`.
 *
 * @throws CliError (usage) for a dimension the window records do not carry (kind, outcome).
 */
export function tallyWindows(
  records: Iterable<readonly [string, unknown]>,
  span: WindowSpan,
  by: readonly AuditDimension[],
  include: AuditInclude,
): WindowTally {
  const missing = by.filter((d) => !WINDOW_DIMENSIONS.includes(d));
  if (missing.length > 0) {
    throw new CliError(
      `--windows counts by ${WINDOW_DIMENSIONS.join(', ')} only, not ${missing.join(', ')}`,
      EXIT.usage,
    );
  }
  const latest = new Map<string, WindowRecordValue>();
  for (const [key, value] of records) if (isWindowRecord(value)) latest.set(key, value);
  const counts = new Map<string, AuditRow>();
  const windows = new Set<string>();
  let late = 0;
  for (const v of latest.values()) {
    if (!inSpan(v, span)) continue;
    if (v.kind === 'window') {
      windows.add(`${v.windowStart}/${v.partition}`);
      late += v.late;
    }
    if (v.kind !== 'decision' || (include === 'refusals' && !v.refusal)) continue;
    const fields: Record<string, string | null> = {
      tenant: v.tenant,
      tool: v.tool,
      stage: v.rung,
      code: v.code,
      disposition: v.disposition,
    };
    const values = Object.fromEntries(by.map((d) => [d, fields[d] ?? '-'])) as Record<
      AuditDimension,
      string
    >;
    const key = JSON.stringify(by.map((d) => values[d]));
    counts.set(key, { values, count: (counts.get(key)?.count ?? 0) + v.count });
  }
  const rows = [...counts.entries()]
    .sort(([ka, a], [kb, b]) => b.count - a.count || ka.localeCompare(kb))
    .map(([, row]) => row);
  return { rows, counted: rows.reduce((n, r) => n + r.count, 0), windows: windows.size, late };
}

function inSpan(v: WindowRecordValue, span: WindowSpan): boolean {
  return (
    v.size === span.size &&
    Date.parse(v.windowStart) >= span.fromMs &&
    (span.toMs === undefined || Date.parse(v.windowEnd) <= span.toMs)
  );
}

function isWindowRecord(value: unknown): value is WindowRecordValue {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return (
    typeof v['kind'] === 'string' &&
    typeof v['size'] === 'string' &&
    typeof v['windowStart'] === 'string' &&
    typeof v['windowEnd'] === 'string'
  );
}
