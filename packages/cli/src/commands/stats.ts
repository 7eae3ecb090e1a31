/**
 * `toolgate stats`: refusals (or every decision) of a time window, counted by stage and code (or
 * tool, tenant, kind, …), read back from the audit topic.
 */
import { formatAuditTable } from '@toolgate/shared';
import { auditStats } from '../audit-stats.js';
import { optionalString, type Command } from '../command.js';
import { parseSince } from '../parse-since.js';
import { parseDimensions } from '../tally-audit.js';

/** `toolgate stats [--since 1h] [--by stage,code] [--all] [--json]`. */
export const statsCommand: Command = {
  name: 'stats',
  summary:
    'Count refusals by stage and code (or tool, tenant, …) over a window of the audit topic.',
  usage: 'toolgate stats [--since 1h] [--by stage,code] [--all] [--json]',
  details: [
    'Reads <TOOLGATE_TOPIC_PREFIX>toolgate.audit from TOOLGATE_KAFKA_BROKERS, decoding with',
    'TOOLGATE_SCHEMA_REGISTRY_URL, as the Kafka identity of TOOLGATE_KAFKA_* (e.g. the analytics',
    'principal toolgate-analytics; exit 4 when Kafka refuses it); needs no integrity key.',
    'A refusal is an event with a code (rejections of every rung, quarantined input, internal',
    'errors, expired confirmations, unknown outcomes, withheld results, tool errors); pending',
    'confirmations are not refusals.',
    'Each event counts once, however often it was redelivered.',
    'Dimensions: kind, stage, code, disposition, outcome, tool, tenant.',
  ],
  options: {
    since: {
      type: 'string',
      description:
        'start of the window: a duration back (90s, 15m, 1h, 2d) or an ISO instant (default 1h)',
    },
    by: { type: 'string', description: 'comma-separated dimensions (default stage,code)' },
    all: { type: 'boolean', description: 'count every event, not only refusals' },
    json: {
      type: 'boolean',
      description: 'print {topic, since, by, rows, read, counted, skipped} as JSON',
    },
  },
  async run({ values, io }) {
    const sinceMs = parseSince(optionalString(values, 'since') ?? '1h', Date.now());
    const by = parseDimensions(optionalString(values, 'by') ?? 'stage,code');
    const stats = await auditStats(io.env, {
      sinceMs,
      by,
      include: values['all'] === true ? 'all' : 'refusals',
    });
    if (values['json'] === true) {
      const { sinceMs: _ms, ...rest } = stats;
      io.stdout.write(`${JSON.stringify({ ...rest, since: new Date(sinceMs).toISOString() })}\n`);
      return 0;
    }
    const what = values['all'] === true ? 'events' : 'refusals';
    io.stdout.write(
      `${what} on ${stats.topic} since ${new Date(sinceMs).toISOString()}` +
        `${stats.skipped > 0 ? ` (${stats.skipped} records were not audit events)` : ''}\n` +
        `${formatAuditTable(stats.rows, by)}\n`,
    );
    return 0;
  },
};
