/**
 * Audit statistics as `toolgate stats` and the demo's closing table show them: read the audit
 * topic over a time window, keep the refusals (or every event), count them by the chosen
 * dimensions. Needs Kafka (as an identity that may read the audit topic), the schema registry and
 * the prefixes, never the integrity key.
 */
import { readTopicWindow, type Env } from '@toolgate/platform';
import type { AuditDimension, AuditRow, WindowSize } from '@toolgate/shared';
import { cliErrorOf } from './fault-exit.js';
import { tallyAudit, type AuditInclude } from './tally-audit.js';
import { tallyWindows } from './tally-windows.js';
import { openTopicReader } from './topic-reader.js';
import { readerGroupPrefix, resolveTopic } from './topic-name.js';

/** Options of {@link auditStats}; every field has a default. */
export interface AuditStatsOptions {
  /** Start of the window, ms since the epoch. Default: one hour before the call. */
  readonly sinceMs?: number;
  /** Dimensions to group by, in column order. Default `['stage', 'code']`. */
  readonly by?: readonly AuditDimension[];
  /** `refusals` (default) or `all` events, accepted ones and confirmations included. */
  readonly include?: AuditInclude;
  /** Give up when the window's end is not reached in this long, ms. Default 30000. */
  readonly timeoutMs?: number;
}

/** What {@link auditStats} read and counted. */
export interface AuditStats {
  /** Full name of the topic read. */
  readonly topic: string;
  readonly sinceMs: number;
  readonly by: readonly AuditDimension[];
  /** Most frequent first; render with `formatAuditTable(rows, by)` from @toolgate/shared. */
  readonly rows: AuditRow[];
  /** Records read in the window. */
  readonly read: number;
  /** Events counted (after the filter, each `eventId` once). */
  readonly counted: number;
  /** Records that were not audit events (undecodable or of another shape). */
  readonly skipped: number;
}

/** One hour, the default window. */
export const DEFAULT_WINDOW_MS = 3_600_000;

/**
 * Reads `<TOOLGATE_TOPIC_PREFIX>toolgate.audit` of `env`'s installation from `sinceMs` to now and
 * counts its events. `env` needs TOOLGATE_KAFKA_BROKERS, TOOLGATE_SCHEMA_REGISTRY_URL,
 * TOOLGATE_TOPIC_PREFIX and TOOLGATE_GROUP_PREFIX (all have defaults) and a Kafka identity that
 * may read the audit topic (TOOLGATE_KAFKA_*, e.g. `toolgate-analytics`), never the integrity key.
 * Its throwaway group is named under `<group prefix>toolgate.analytics.`, which the ACL table
 * grants analytics.
 *
 * @throws ConfigError for a bad variable; CliError (exit 3 unavailable, 4 refused by Kafka, 5 no
 *   such topic) when Kafka or the registry cannot be read.
 */
export async function auditStats(env: Env, options: AuditStatsOptions = {}): Promise<AuditStats> {
  const sinceMs = options.sinceMs ?? Date.now() - DEFAULT_WINDOW_MS;
  const by = options.by ?? ['stage', 'code'];
  const reader = openTopicReader(env);
  const topic = resolveTopic('audit', reader.topicPrefix);
  const values: unknown[] = [];
  try {
    const read = await readTopicWindow(reader.bus, reader.codec, {
      topic,
      sinceMs,
      groupPrefix: readerGroupPrefix('audit', reader),
      onRecord: (r) => values.push(r.value),
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    });
    const tally = tallyAudit(values, by, options.include ?? 'refusals');
    return { topic, sinceMs, by, read, ...tally };
  } catch (error) {
    throw cliErrorOf(error, `reading ${topic}`, topic);
  } finally {
    await reader.close();
  }
}

/** Options of {@link windowStats}. */
export interface WindowStatsOptions extends AuditStatsOptions {
  /** Which windows to sum. */
  readonly size: WindowSize;
  /** Only windows ending at or before this, ms since the epoch. Default no bound. */
  readonly toMs?: number;
}

/** What {@link windowStats} read and counted. */
export interface WindowStats extends AuditStats {
  readonly size: WindowSize;
  /** Distinct windows (start and audit partition) counted. */
  readonly windows: number;
  /** Events the windows counted as late (in no window's counts). */
  readonly late: number;
}

/**
 * The rows {@link auditStats} gives, summed from the analytics service's final windows
 * (`<TOOLGATE_TOPIC_PREFIX>toolgate.refusal-stats`) of `size` that start at or after `sinceMs`,
 * instead of rescanning the audit topic. Windows still open are not there yet. Same variables and
 * identity as {@link auditStats}.
 *
 * @throws CliError as {@link auditStats}, and (usage) for a dimension windows do not carry.
 */
export async function windowStats(env: Env, options: WindowStatsOptions): Promise<WindowStats> {
  const sinceMs = options.sinceMs ?? Date.now() - DEFAULT_WINDOW_MS;
  const by = options.by ?? ['stage', 'code'];
  const reader = openTopicReader(env);
  const topic = resolveTopic('refusal-stats', reader.topicPrefix);
  const records: [string, unknown][] = [];
  try {
    // A window's records are written when it closes, after it starts: none before `sinceMs`.
    const read = await readTopicWindow(reader.bus, reader.codec, {
      topic,
      sinceMs,
      groupPrefix: readerGroupPrefix('refusal-stats', reader),
      onRecord: (r) => records.push([r.key ?? '', r.value]),
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    });
    const span = {
      size: options.size,
      fromMs: sinceMs,
      ...(options.toMs === undefined ? {} : { toMs: options.toMs }),
    };
    const tally = tallyWindows(records, span, by, options.include ?? 'refusals');
    return { topic, sinceMs, by, read, skipped: 0, size: options.size, ...tally };
  } catch (error) {
    throw cliErrorOf(error, `reading ${topic}`, topic);
  } finally {
    await reader.close();
  }
}
