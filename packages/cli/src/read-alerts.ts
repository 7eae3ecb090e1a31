/**
 * Reads the alerts topic over a time window, as the analytics principal: what `toolgate alerts`
 * prints. Needs Kafka, the schema registry and the prefixes, never the integrity key.
 */
import { readTopicWindow, type Env } from '@toolgate/platform';
import { collectAlerts, type AlertList } from './alert-lines.js';
import { cliErrorOf } from './fault-exit.js';
import { openTopicReader } from './topic-reader.js';
import { readerGroupPrefix, resolveTopic } from './topic-name.js';

/** What {@link readAlerts} read. */
export interface ReadAlerts extends AlertList {
  /** Full name of the topic read. */
  readonly topic: string;
  /** Records read in the window, duplicates and non-alerts included. */
  readonly read: number;
}

/**
 * Reads `<TOOLGATE_TOPIC_PREFIX>toolgate.alerts` of `env`'s installation from `sinceMs` (record
 * time) to now, under a throwaway group named under `<group prefix>toolgate.analytics.`, which the
 * ACL table grants analytics, and keeps each alert once ({@link collectAlerts}).
 *
 * @throws ConfigError for a bad variable; CliError (exit 3 unavailable, 4 refused by Kafka, 5 no
 *   such topic) when Kafka or the registry cannot be read.
 */
export async function readAlerts(
  env: Env,
  options: { readonly sinceMs: number; readonly timeoutMs?: number },
): Promise<ReadAlerts> {
  const reader = openTopicReader(env);
  const topic = resolveTopic('alerts', reader.topicPrefix);
  const values: unknown[] = [];
  try {
    const read = await readTopicWindow(reader.bus, reader.codec, {
      topic,
      sinceMs: options.sinceMs,
      groupPrefix: readerGroupPrefix('alerts', reader),
      onRecord: (r) => values.push(r.value),
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    });
    return { topic, read, ...collectAlerts(values) };
  } catch (error) {
    throw cliErrorOf(error, `reading ${topic}`, topic);
  } finally {
    await reader.close();
  }
}
