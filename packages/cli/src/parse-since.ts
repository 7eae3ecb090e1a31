/** `--since` values: a duration back from now (`90s`, `15m`, `1h`, `2d`) or an ISO-8601 instant. */
import { CliError, EXIT } from './cli-error.js';

const UNIT_MS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
const DURATION = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)$/;
// A date, optionally with a time: what an operator types or copies from a log line.
const ISO_INSTANT =
  /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/;

/**
 * The start of a window, in ms since the epoch: `now` minus a duration (at the earliest the
 * epoch itself), or the instant given.
 *
 * @throws CliError (usage) naming the accepted forms, for anything else or an instant after `now`.
 */
export function parseSince(text: string, now: number): number {
  const trimmed = text.trim();
  const duration = DURATION.exec(trimmed);
  if (duration !== null) {
    const ms = Number(duration[1]) * UNIT_MS[duration[2] as keyof typeof UNIT_MS];
    // A window reaching back before 1970 (or an endless one, `1e400` digits long) starts at the
    // epoch: every record kept. Left as it is, it would be no time a Date can hold.
    return Math.max(0, now - ms);
  }
  const instant =
    ISO_INSTANT.test(trimmed) && isCalendarDate(trimmed) ? Date.parse(trimmed) : Number.NaN;
  if (Number.isNaN(instant)) {
    throw new CliError(
      `--since ${JSON.stringify(text)}: give a duration (90s, 15m, 1h, 2d) or an ISO-8601 instant (2026-01-31T09:00:00Z)`,
      EXIT.usage,
    );
  }
  if (instant > now) {
    throw new CliError(`--since ${text} is in the future`, EXIT.usage);
  }
  return instant;
}

/** Whether the instant's `YYYY-MM-DD` names a day of the calendar: V8 rolls 2026-02-30 over. */
function isCalendarDate(instant: string): boolean {
  const [year, month, day] = instant.slice(0, 10).split('-').map(Number) as [
    number,
    number,
    number,
  ];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}
