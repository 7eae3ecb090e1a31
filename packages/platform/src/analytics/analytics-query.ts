/**
 * The query strings of the analytics API, checked: unknown, repeated or ill-formed parameters are
 * refused with a message that names them, never ignored.
 */
import { WINDOW_SIZES, type WindowSize } from '@toolgate/shared';
import type { AnalyticsQuery } from './analytics-view.js';

/** A query string that cannot be answered: code and message for a 400. */
export interface QueryProblem {
  readonly ok: false;
  readonly code: 'unknown_parameter' | 'repeated_parameter' | 'invalid_size' | 'invalid_since';
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
