/**
 * `toolgate alerts`: the alerts the analytics service raised over a time window, read back from
 * the alerts topic, each once, newest last.
 */
import { optionalString, type Command } from '../command.js';
import { formatAlertLine } from '../alert-lines.js';
import { parseSince } from '../parse-since.js';
import { readAlerts } from '../read-alerts.js';

/** `toolgate alerts [--since 1h] [--json]`. */
export const alertsCommand: Command = {
  name: 'alerts',
  summary: 'Show the alerts raised over a window, read back from the alerts topic.',
  usage: 'toolgate alerts [--since <duration|ISO>] [--json]',
  details: [
    'Reads <TOOLGATE_TOPIC_PREFIX>toolgate.alerts from TOOLGATE_KAFKA_BROKERS, decoding with',
    'TOOLGATE_SCHEMA_REGISTRY_URL, as the Kafka identity of TOOLGATE_KAFKA_* (e.g. the analytics',
    'principal toolgate-analytics; exit 4 when Kafka refuses it); needs no integrity key.',
    'One line per alert, newest last: raised at, rule, subject (kind tenant/id), window,',
    'counts (>threshold), "(log only)" for a rule in log mode, and the start of its id.',
    'An alert written again (the same alertId, after a restart) is shown once. Rules: docs/alerts.md.',
  ],
  options: {
    since: {
      type: 'string',
      description:
        'start of the window: a duration back (90s, 15m, 1h, 2d) or an ISO instant (default 1h)',
    },
    json: { type: 'boolean', description: 'print {topic, since, alerts, read, skipped} as JSON' },
  },
  async run({ values, io }) {
    const sinceMs = parseSince(optionalString(values, 'since') ?? '1h', Date.now());
    const found = await readAlerts(io.env, { sinceMs });
    const since = new Date(sinceMs).toISOString();
    if (values['json'] === true) {
      const { topic, alerts, read, skipped } = found;
      io.stdout.write(`${JSON.stringify({ topic, since, alerts, read, skipped })}\n`);
      return 0;
    }
    const skipped =
      found.skipped > 0 ? ` (${found.skipped} records were not alerts and are not shown)` : '';
    const head = `${found.alerts.length} alerts on ${found.topic} since ${since}${skipped}`;
    io.stdout.write(`${[head, ...found.alerts.map(formatAlertLine)].join('\n')}\n`);
    return 0;
  },
};
