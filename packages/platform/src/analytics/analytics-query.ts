/**
 * The query strings of the analytics API, checked: unknown, repeated or ill-formed parameters are
 * refused with a message that names them, never ignored.
 */
import {
  DISPOSITIONS,
  REJECTION_CODES,
  RUNGS,
  WINDOW_SIZES,
  type AnyCode,
  type Disposition,
  type Rung,
  type WindowSize,
} from '@toolgate/shared';
import type { AnalyticsQuery, AuditEventQuery } from './analytics-view.js';

/** A query string that cannot be answered: code and message for a 400. */
export interface QueryProblem {
  readonly ok: false;
  readonly code:
    | 'unknown_parameter'
    | 'repeated_parameter'
    | 'missing_parameter'
    | 'invalid_size'
    | 'invalid_since'
    | 'invalid_start'
    | 'invalid_rung'
    | 'invalid_code'
    | 'invalid_disposition'
    | 'invalid_limit'
    | 'invalid_value';
  readonly message: string;
}

/** What a query string asked, when it is acceptable. */
export type Checked<T> = { readonly ok: true; readonly value: T } | QueryProblem;

/** An ISO-8601 instant with a date, a time and a zone (`Z` or an offset). */
const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

/** `GET /analytics/windows`: `size` (minute or hour, default minute) and `since`. */
export function windowsQueryOf(
  query: URLSearchParams,
): Checked<AnalyticsQuery & { readonly size: WindowSize }> {
  const known = knownOnly(query, ['size', 'since']);
  if (!known.ok) return known;
  const size = sizeOf(query.get('size') ?? 'minute');
  if (!size.ok) return size;
  const since = sinceOf(query.get('since'));
  if (!since.ok) return since;
  return { ok: true, value: { size: size.value, ...since.value } };
}

/** `GET /analytics/alerts`: `since`. */
export function alertsQueryOf(query: URLSearchParams): Checked<AnalyticsQuery> {
  const known = knownOnly(query, ['since']);
  return known.ok ? sinceOf(query.get('since')) : known;
}

/** `GET /analytics/stream`: `size` to carry only that size's windows; default both. */
export function streamQueryOf(query: URLSearchParams): Checked<{ readonly size?: WindowSize }> {
  const known = knownOnly(query, ['size']);
  if (!known.ok) return known;
  const asked = query.get('size');
  if (asked === null) return { ok: true, value: {} };
  const size = sizeOf(asked);
  return size.ok ? { ok: true, value: { size: size.value } } : size;
}

/** Default events a drill-down answers. */
export const DEFAULT_EVENTS_LIMIT = 50;

/** The most events a drill-down answers. */
export const MAX_EVENTS_LIMIT = 200;

/** The longest tenant, tool, subject or run id a drill-down takes, in characters. */
const MAX_VALUE_CHARS = 256;

/** The drill-down's parameters that match one of an event's values as given. */
const EVENT_VALUES = ['tenant', 'tool', 'subject', 'runId'] as const;

/**
 * `GET /analytics/events`: `start` (a window's start, on its size's boundary), `size` (default
 * minute), the row's `tenant`, `tool`, `rung`, `code`, `disposition`, the `subject` or `runId`, and
 * `limit` (1 to {@link MAX_EVENTS_LIMIT}, default {@link DEFAULT_EVENTS_LIMIT}).
 */
export function eventsQueryOf(query: URLSearchParams): Checked<AuditEventQuery> {
  const names = ['size', 'start', ...EVENT_VALUES, 'rung', 'code', 'disposition', 'limit'];
  const known = knownOnly(query, names);
  if (!known.ok) return known;
  const size = sizeOf(query.get('size') ?? 'minute');
  if (!size.ok) return size;
  const start = startOf(query.get('start'), size.value);
  if (!start.ok) return start;
  const values: Record<string, string> = {};
  for (const name of EVENT_VALUES) {
    const value = query.get(name);
    if (value === null) continue;
    if (value === '' || value.length > MAX_VALUE_CHARS) {
      return problem(
        'invalid_value',
        `${name} must be 1 to ${MAX_VALUE_CHARS} characters; leave it out to match any.`,
      );
    }
    values[name] = value;
  }
  const rows = rowValuesOf(query);
  if (!rows.ok) return rows;
  const limit = limitOf(query.get('limit'));
  if (!limit.ok) return limit;
  return {
    ok: true,
    value: { size: size.value, start: start.value, ...values, ...rows.value, limit: limit.value },
  };
}

/** `GET /analytics/approvals`: `since`. */
export function approvalsQueryOf(query: URLSearchParams): Checked<AnalyticsQuery> {
  return alertsQueryOf(query);
}

function startOf(value: string | null, size: WindowSize): Checked<string> {
  if (value === null) {
    return problem('missing_parameter', 'start is required: the start of the window to open.');
  }
  const instant = sinceOf(value);
  const ms = instant.ok ? (instant.value.since?.getTime() ?? NaN) : NaN;
  if (Number.isNaN(ms) || ms % WINDOW_SIZES[size] !== 0) {
    return problem(
      'invalid_start',
      `start must be the start of a ${size} window as the windows name it, e.g. 2026-01-31T09:00:00.000Z, got ${quoted(value)}.`,
    );
  }
  return { ok: true, value: new Date(ms).toISOString() };
}

type RowValues = { rung?: Rung; code?: AnyCode; disposition?: Disposition };

/** `rung`, `code` and `disposition`, each one the catalogue knows; a code of the rung given. */
function rowValuesOf(query: URLSearchParams): Checked<RowValues> {
  const out: RowValues = {};
  const rung = query.get('rung');
  if (rung !== null) {
    if (!(RUNGS as readonly string[]).includes(rung)) {
      return problem(
        'invalid_rung',
        `rung must be one of ${RUNGS.join(', ')}, got ${quoted(rung)}.`,
      );
    }
    out.rung = rung as Rung;
  }
  const code = query.get('code');
  if (code !== null) {
    const rungs = out.rung === undefined ? RUNGS : [out.rung];
    if (!rungs.some((r) => Object.hasOwn(REJECTION_CODES[r], code))) {
      const of = out.rung === undefined ? 'the catalogue' : `rung ${out.rung}`;
      return problem('invalid_code', `code ${quoted(code)} is not a code of ${of}.`);
    }
    out.code = code as AnyCode;
  }
  const disposition = query.get('disposition');
  if (disposition !== null) {
    if (!(DISPOSITIONS as readonly string[]).includes(disposition)) {
      return problem(
        'invalid_disposition',
        `disposition must be one of ${DISPOSITIONS.join(', ')}, got ${quoted(disposition)}.`,
      );
    }
    out.disposition = disposition as Disposition;
  }
  return { ok: true, value: out };
}

function limitOf(value: string | null): Checked<number> {
  if (value === null) return { ok: true, value: DEFAULT_EVENTS_LIMIT };
  const n = /^\d{1,4}$/.test(value) ? Number(value) : NaN;
  if (!(n >= 1 && n <= MAX_EVENTS_LIMIT)) {
    return problem(
      'invalid_limit',
      `limit must be a whole number from 1 to ${MAX_EVENTS_LIMIT}, got ${quoted(value)}.`,
    );
  }
  return { ok: true, value: n };
}

function knownOnly(query: URLSearchParams, names: readonly string[]): Checked<null> {
  const seen = new Set<string>();
  for (const name of query.keys()) {
    if (!names.includes(name)) {
      return problem(
        'unknown_parameter',
        `Unknown parameter ${quoted(name)}; this resource takes ${names.join(', ')}.`,
      );
    }
    if (seen.has(name))
      return problem('repeated_parameter', `Parameter ${name} is given more than once.`);
    seen.add(name);
  }
  return { ok: true, value: null };
}

function sizeOf(value: string): Checked<WindowSize> {
  return Object.hasOwn(WINDOW_SIZES, value)
    ? { ok: true, value: value as WindowSize }
    : problem(
        'invalid_size',
        `size must be one of ${Object.keys(WINDOW_SIZES).join(', ')}, got ${quoted(value)}.`,
      );
}

function sinceOf(value: string | null): Checked<AnalyticsQuery> {
  if (value === null) return { ok: true, value: {} };
  const ms = INSTANT.test(value) && realDate(value) ? Date.parse(value) : NaN;
  if (Number.isNaN(ms)) {
    return problem(
      'invalid_since',
      `since must be an ISO-8601 instant with a zone, e.g. 2026-01-31T09:00:00Z, got ${quoted(value)}.`,
    );
  }
  return { ok: true, value: { since: new Date(ms) } };
}

/** Whether the calendar date and time of day exist (`Date.parse` rolls 02-30 over to March). */
function realDate(instant: string): boolean {
  const [year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0] = (
    instant.match(/\d+/g) ?? []
  ).map(Number);
  const days = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return (
    month >= 1 &&
    month <= 12 &&
    day >= 1 &&
    day <= days &&
    hour <= 23 &&
    minute <= 59 &&
    second <= 59
  );
}

/** A caller's value in a message, bounded, as JSON so nothing in it reads as markup. */
function quoted(value: string): string {
  return JSON.stringify(value.length > 64 ? `${value.slice(0, 64)}…` : value);
}

function problem(code: QueryProblem['code'], message: string): QueryProblem {
  return { ok: false, code, message };
}
