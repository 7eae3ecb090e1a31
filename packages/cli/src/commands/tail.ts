/**
 * `toolgate tail <topic>`: every record of a gate topic from now on (or from `--since`), decoded,
 * one JSON line each, until Ctrl-C or `--max` records.
 */
import { followTopic, type Following, type ReadRecord } from '@toolgate/platform';
import { CliError, EXIT } from '../cli-error.js';
import { optionalString, type Command } from '../command.js';
import { cliErrorOf } from '../fault-exit.js';
import { prefixesOf } from '../kafka-client.js';
import { parseSince } from '../parse-since.js';
import { openTopicReader } from '../topic-reader.js';
import { readerGroupPrefix, resolveTopic } from '../topic-name.js';

/** `toolgate tail <topic> [--since <duration|ISO>] [--max <n>]`. */
export const tailCommand: Command = {
  name: 'tail',
  summary: 'Print the records of a topic as they arrive, decoded, one JSON line each.',
  usage: 'toolgate tail <topic> [--since <duration|ISO>] [--max <n>]',
  details: [
    'Topics by short name: proposals, validated, authorized, cleared, confirmations, approvals,',
    'results, audit, quarantine, commands.<tool>, observations.<tenant> (under',
    'TOOLGATE_TOPIC_PREFIX).',
    'Reads as the Kafka identity of TOOLGATE_KAFKA_* (SASL user, password or password file, TLS):',
    "a tenant's agents (agent-<tenant>) read observations.<tenant>, analytics audit, approval UIs",
    'confirmations; the other topics need an administrator. Exit 4 when Kafka refuses it.',
    'Each line: {"partition", "offset", "timestamp", "key", "value"}; a record that does not',
    'decode has "decodeError" instead of "value". Committed records only; nothing is committed.',
    'Runs until Ctrl-C, or until --max records were printed.',
  ],
  options: {
    since: {
      type: 'string',
      description: 'start from a duration back (10m) or an ISO instant instead of now',
    },
    max: { type: 'string', description: 'stop after this many records' },
  },
  async run({ values, positionals, io }) {
    const [name, ...rest] = positionals;
    if (name === undefined || rest.length > 0) throw new CliError('name one topic', EXIT.usage);
    const max = parseMax(optionalString(values, 'max'));
    const since = optionalString(values, 'since');
    const sinceMs = since === undefined ? undefined : parseSince(since, Date.now());
    const prefixes = prefixesOf(io.env);
    const topic = resolveTopic(name, prefixes.topicPrefix);
    const reader = openTopicReader(io.env);
    let printed = 0;
    let enough: () => void = () => undefined;
    let failed: (error: Error) => void = () => undefined;
    const done = new Promise<void>((resolve, reject) => {
      enough = resolve;
      failed = reject;
    });
    let following: Following | undefined;
    try {
      following = await followTopic(reader.bus, reader.codec, {
        topic,
        groupPrefix: readerGroupPrefix(name, prefixes),
        ...(sinceMs === undefined ? {} : { sinceMs }),
        onRecord: (record) => {
          if (max !== undefined && printed >= max) return;
          io.stdout.write(`${tailLine(record)}\n`);
          printed += 1;
          if (max !== undefined && printed >= max) enough();
        },
        // Kafka or the registry could not be read, after kafkajs's retries: said and ended, not
        // waited out in silence.
        onFailure: failed,
      });
      const signal = io.stopSignal?.();
      signal?.addEventListener('abort', enough, { once: true });
      if (signal?.aborted === true) enough();
      await done;
      await following.stop();
    } catch (error) {
      await following?.stop().catch(() => undefined);
      throw cliErrorOf(error, `tail ${topic}`, topic);
    } finally {
      await reader.close();
    }
    return 0;
  },
};

/** One record as a line: where it is, when it was written, its key and its decoded value. */
export function tailLine(record: ReadRecord): string {
  return JSON.stringify({
    partition: record.partition,
    offset: record.offset,
    timestamp: new Date(record.timestamp).toISOString(),
    key: record.key,
    ...(record.decodeError === undefined
      ? { value: record.value }
      : { decodeError: record.decodeError }),
  });
}

function parseMax(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1)
    throw new CliError(
      `--max must be a whole number of records, at least 1 (got ${text})`,
      EXIT.usage,
    );
  return n;
}
