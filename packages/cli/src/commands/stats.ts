/**
 * `toolgate stats`: refusals (or every decision) of a time window, counted by stage and code (or
 * tool, tenant, kind, …), read back from the audit topic.
 */
import { formatAuditTable } from '@toolgate/shared';
import { auditStats, windowStats, type AuditStats, type WindowStats } from '../audit-stats.js';
import { CliError, EXIT } from '../cli-error.js';
import { optionalString, type Command } from '../command.js';
import { parseSince } from '../parse-since.js';
import { parseDimensions } from '../tally-audit.js';
import { parseWindowSize } from '../tally-windows.js';

/** `toolgate stats [--since 1h] [--by stage,code] [--all] [--windows minute|hour [--to <instant>]] [--json]`. */
export const statsCommand: Command = {
  name: 'stats',
  summary:
    'Count refusals by stage and code (or tool, tenant, …) over a window of the audit topic.',
  usage:
    'toolgate stats [--since 1h] [--by stage,code] [--all] [--windows minute|hour [--to <instant>]] [--json]',
  details: [
    'Reads <TOOLGATE_TOPIC_PREFIX>toolgate.audit from TOOLGATE_KAFKA_BROKERS, decoding with',
    'TOOLGATE_SCHEMA_REGISTRY_URL, as the Kafka identity of TOOLGATE_KAFKA_* (e.g. the analytics',
    'principal toolgate-analytics; exit 4 when Kafka refuses it); needs no integrity key.',
    'A refusal is an event with a code (rejections of every rung, quarantined input, internal',
    'errors, expired confirmations, unknown outcomes, withheld results, tool errors); pending',
    'confirmations are not refusals.',
    'Each event counts once, however often it was redelivered.',
    'Dimensions: kind, stage, code, disposition, outcome, tool, tenant.',
    "--windows minute|hour sums the analytics service's final windows (toolgate.refusal-stats)",
    'that start at or after --since (and end by --to) instead of rescanning the audit topic;',
    'open windows are not there yet, late events are in no window (their number is shown), and',
    'only tenant, tool, stage, code and disposition can be counted by.',
  ],
  options: {
    since: {
      type: 'string',
      description:
        'start of the window: a duration back (90s, 15m, 1h, 2d) or an ISO instant (default 1h)',
    },
    by: { type: 'string', description: 'comma-separated dimensions (default stage,code)' },
    all: { type: 'boolean', description: 'count every event, not only refusals' },
    windows: {
      type: 'string',
      description: 'sum the final windows of this size (minute or hour) from refusal-stats',
    },
    to: {
      type: 'string',
      description: 'with --windows: windows ending at or before this (duration back or instant)',
    },
    json: {
      type: 'boolean',
      description: 'print {topic, since, by, rows, read, counted, skipped} as JSON',
    },
  },
  async run({ values, io }) {
    const sinceMs = parseSince(optionalString(values, 'since') ?? '1h', Date.now());
    const by = parseDimensions(optionalString(values, 'by') ?? 'stage,code');
    const include = values['all'] === true ? 'all' : 'refusals';
    const size = optionalString(values, 'windows');
    const to = optionalString(values, 'to');
    if (to !== undefined && size === undefined) {
      throw new CliError('--to is for --windows: the audit topic is read up to now', EXIT.usage);
    }
    const windowed: WindowStats | undefined =
      size === undefined
        ? undefined
        : await windowStats(io.env, {
            sinceMs,
            by,
            include,
            size: parseWindowSize(size),
            ...(to === undefined ? {} : { toMs: parseSince(to, Date.now()) }),
          });
    const stats: AuditStats = windowed ?? (await auditStats(io.env, { sinceMs, by, include }));
    if (values['json'] === true) {
      const { sinceMs: _ms, ...rest } = stats;
      io.stdout.write(`${JSON.stringify({ ...rest, since: new Date(sinceMs).toISOString() })}\n`);
      return 0;
    }
    const what = values['all'] === true ? 'events' : 'refusals';
    const windows =
      windowed === undefined
        ? ''
        : ` in ${windowed.windows} final ${windowed.size} windows (${windowed.late} events came late)`;
    io.stdout.write(
      `${what} on ${stats.topic}${windows} since ${new Date(sinceMs).toISOString()}` +
        `${stats.skipped > 0 ? ` (${stats.skipped} records were not audit events)` : ''}\n` +
        `${formatAuditTable(stats.rows, by)}\n`,
    );
    return 0;
  },
};
