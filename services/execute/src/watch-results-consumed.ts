/**
 * An execute process that consumes only cleared envelopes (TOOLGATE_EXECUTE_INPUTS=cleared) issues
 * commands whose calls end only where tool results are settled and deadlines swept: in another
 * execute process of the same group. With none running, every command goes out and no call ends,
 * not even with an unknown outcome. This watch checks the group's subscriptions now and then and
 * says so at error level, once for each spell without one, and at info when one is back; the
 * gauge `toolgate_topic_consumed{group,topic}` says the same at every look, for alerts.
 */
import {
  repeatEvery,
  type AdapterLogger,
  type Bus,
  type Metrics,
  type Repetition,
} from '@toolgate/platform';

/** How often the group is checked; the first check comes one interval after the start. */
export const RESULTS_WATCH_INTERVAL_MS = 30_000;

/** Options of {@link watchResultsConsumed}. */
export interface ResultsWatchOptions {
  readonly bus: Pick<Bus, 'groupTopics'>;
  readonly logger: AdapterLogger;
  readonly metrics: Pick<Metrics, 'topicConsumed'>;
  /** The execute group, which every execute process joins. */
  readonly groupId: string;
  /** The tool results topic. */
  readonly resultsTopic: string;
  readonly intervalMs?: number;
}

/**
 * Starts checking that some member of the execute group consumes the results topic. Its `stop`
 * does not wait for a check in flight: a check only reports, and with Kafka unreachable its admin
 * request could hold the process's stop past the shutdown deadline. What it finds then is dropped.
 */
export function watchResultsConsumed(options: ResultsWatchOptions): Repetition {
  const { bus, logger, metrics, groupId, resultsTopic } = options;
  let missing = false;
  let stopped = false;
  const check = async () => {
    const consumed = (await bus.groupTopics(groupId)).includes(resultsTopic);
    if (stopped) return;
    metrics.topicConsumed(groupId, resultsTopic, consumed);
    if (!consumed && !missing) {
      logger.error(
        { group: groupId, topic: resultsTopic },
        'no execute process consumes tool results: commands go out but no call ends until one ' +
          'does (TOOLGATE_EXECUTE_INPUTS=results or both)',
      );
    } else if (consumed && missing) {
      logger.info(
        { group: groupId, topic: resultsTopic },
        'an execute process consumes tool results again',
      );
    }
    missing = !consumed;
  };
  const repetition = repeatEvery(
    options.intervalMs ?? RESULTS_WATCH_INTERVAL_MS,
    check,
    (error) => {
      if (stopped) return;
      logger.warn(
        { err: error instanceof Error ? error.message : String(error), group: groupId },
        'could not check that an execute process consumes tool results',
      );
    },
  );
  return {
    stop() {
      stopped = true;
      // Stops the schedule; the check in flight, if any, ends on its own and is ignored.
      void repetition.stop();
      return Promise.resolve();
    },
  };
}
