import { describe, expect, it } from 'vitest';
import { promiseCallbacksRun } from '../../../test/support/deadline.js';
import { recordingLogger } from '../../../test/support/recording-logger.js';
import { watchResultsConsumed } from './watch-results-consumed.js';

const GROUP = 'toolgate.execute';
const RESULTS = 'toolgate.results';
const CLEARED = 'toolgate.cleared';

/**
 * Runs the watch over `answers` (one per check: the group's topics, or an error), then stops it
 * during the check after the last, which never answers: checks never overlap, so by then the last
 * answer was dealt with. Returns the log lines, and the gauge's values in the order they were set.
 */
async function watchAndGauge(answers: readonly (readonly string[] | Error)[]) {
  const logger = recordingLogger();
  const gauge: number[] = [];
  let checks = 0;
  let done: () => void = () => undefined;
  const finished = new Promise<void>((resolve) => (done = resolve));
  const watch = watchResultsConsumed({
    bus: {
      groupTopics: (groupId) => {
        expect(groupId).toBe(GROUP);
        const answer = answers[checks];
        checks += 1;
        if (answer === undefined) {
          done();
          return new Promise<never>(() => undefined);
        }
        return answer instanceof Error ? Promise.reject(answer) : Promise.resolve(answer);
      },
    },
    logger,
    metrics: {
      topicConsumed: (group, topic, consumed) => {
        expect([group, topic]).toEqual([GROUP, RESULTS]);
        gauge.push(consumed ? 1 : 0);
      },
    },
    groupId: GROUP,
    resultsTopic: RESULTS,
    intervalMs: 1,
  });
  await finished;
  await watch.stop();
  return { lines: logger.lines.map((l) => [l.level, l.message] as const), gauge };
}

async function watchOver(answers: readonly (readonly string[] | Error)[]) {
  return (await watchAndGauge(answers)).lines;
}

describe('watchResultsConsumed', () => {
  it('says nothing while some member consumes results', async () => {
    expect(await watchOver([[CLEARED, RESULTS], [RESULTS], [CLEARED, RESULTS]])).toEqual([]);
  });

  it('says once, at error level, that no member consumes results, and when one does again', async () => {
    const lines = await watchOver([
      [CLEARED, RESULTS],
      [CLEARED],
      [],
      [CLEARED],
      [RESULTS],
      [CLEARED],
    ]);
    expect(lines.map(([level]) => level)).toEqual(['error', 'info', 'error']);
    expect(lines[0]?.[1]).toMatch(/no execute process consumes tool results/);
    expect(lines[1]?.[1]).toMatch(/consumes tool results again/);
  });

  it('sets the gauge at every look it could take, 1 while results are consumed', async () => {
    const { gauge } = await watchAndGauge([
      [CLEARED, RESULTS],
      [CLEARED],
      new Error('broker down'),
      [CLEARED],
      [RESULTS],
    ]);
    expect(gauge).toEqual([1, 0, 0, 1]);
  });

  it('stops at once with a check in flight, and says nothing of what that check finds', async () => {
    const logger = recordingLogger();
    const gauge: boolean[] = [];
    let answer: (topics: readonly string[]) => void = () => undefined;
    let asked: () => void = () => undefined;
    const inFlight = new Promise<void>((resolve) => (asked = resolve));
    const watch = watchResultsConsumed({
      bus: {
        groupTopics: () => {
          asked();
          return new Promise((resolve) => (answer = resolve));
        },
      },
      logger,
      metrics: { topicConsumed: (_group, _topic, consumed) => gauge.push(consumed) },
      groupId: GROUP,
      resultsTopic: RESULTS,
      intervalMs: 1,
    });
    await inFlight;
    // The check never answers before the stop: the stop must not wait for it.
    await watch.stop();
    answer([CLEARED]);
    // The check goes on in promise callbacks only: once they have run, it has dealt with the answer.
    await promiseCallbacksRun();
    expect(logger.lines).toEqual([]);
    expect(gauge).toEqual([]);
  });

  it('warns when the group cannot be read, and goes on checking', async () => {
    const lines = await watchOver([new Error('broker down'), [CLEARED]]);
    expect(lines).toEqual([
      ['warn', 'could not check that an execute process consumes tool results'],
      ['error', expect.stringMatching(/no execute process consumes tool results/)],
    ]);
  });
});
