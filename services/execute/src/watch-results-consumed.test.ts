import { describe, expect, it } from 'vitest';
import { recordingLogger } from '../../../test/support/recording-logger.js';
import { watchResultsConsumed } from './watch-results-consumed.js';

const GROUP = 'toolgate.execute';
const RESULTS = 'toolgate.results';
const CLEARED = 'toolgate.cleared';

/** Runs the watch over `answers` (one per check: the group's topics, or an error), then stops it. */
async function watchOver(answers: readonly (readonly string[] | Error)[]) {
  const logger = recordingLogger();
  let checks = 0;
  let done: () => void = () => undefined;
  const finished = new Promise<void>((resolve) => (done = resolve));
  const watch = watchResultsConsumed({
    bus: {
      groupTopics: (groupId) => {
        expect(groupId).toBe(GROUP);
        const answer = answers[Math.min(checks, answers.length - 1)];
        checks += 1;
        if (checks === answers.length) done();
        return answer instanceof Error ? Promise.reject(answer) : Promise.resolve(answer ?? []);
      },
    },
    logger,
    groupId: GROUP,
    resultsTopic: RESULTS,
    intervalMs: 1,
  });
  await finished;
  await watch.stop();
  return logger.lines.map((l) => [l.level, l.message] as const);
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

  it('warns when the group cannot be read, and goes on checking', async () => {
    const lines = await watchOver([new Error('broker down'), [CLEARED]]);
    expect(lines).toEqual([
      ['warn', 'could not check that an execute process consumes tool results'],
      ['error', expect.stringMatching(/no execute process consumes tool results/)],
    ]);
  });
});
