/**
 * The key-lane scheduler on its own: no Kafka, no clock. Each test holds messages back with
 * promises it settles itself, so the order it asserts is the only one the scheduler allows.
 */
import { describe, expect, it } from 'vitest';
import { lanesOf, runKeyLanes, type KeyLaneWork, type LaneStep } from './key-lanes.js';

/** A promise and the function that resolves it. */
function deferred() {
  let resolve: () => void = () => undefined;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

/** Work over `keys` whose messages produce their index, handled by `handle`. */
function work(
  keys: readonly string[],
  handle: KeyLaneWork<number, string>['handle'],
  options: Partial<Pick<KeyLaneWork<number, string>, 'lanesAtOnce' | 'mayStart'>> = {},
): KeyLaneWork<number, string> {
  return {
    keys,
    lanesAtOnce: options.lanesAtOnce ?? 32,
    mayStart: options.mayStart ?? (() => true),
    handle,
  };
}

const done = (index: number): Promise<LaneStep<number, string>> =>
  Promise.resolve({ handled: index });

describe('lanesOf', () => {
  it('groups indexes by key in offset order, lanes in order of first appearance', () => {
    expect(lanesOf(['a', 'b', 'a', 'c', 'b'], 4)).toEqual([[0, 2], [1, 4], [3]]);
  });

  it('puts every message in one lane when one lane runs at a time', () => {
    expect(lanesOf(['a', 'b', 'a'], 1)).toEqual([[0, 1, 2]]);
    expect(lanesOf([], 1)).toEqual([]);
  });
});

describe('runKeyLanes', () => {
  it('handles different keys side by side and one key in order, answering in offset order', async () => {
    const seen: number[] = [];
    const secondSeen = deferred();
    // Message 0 (key a) ends only once message 1 (key b) was handled: in strict order, never.
    const outcome = await runKeyLanes(
      work(['a', 'b', 'a', 'b'], async (index) => {
        if (index === 0) await secondSeen.promise;
        seen.push(index);
        if (index === 1) secondSeen.resolve();
        return { handled: index };
      }),
    );
    expect(seen.indexOf(1)).toBeLessThan(seen.indexOf(0));
    expect(seen.indexOf(0)).toBeLessThan(seen.indexOf(2));
    expect(seen.indexOf(1)).toBeLessThan(seen.indexOf(3));
    expect(outcome).toEqual({ handled: [0, 1, 2, 3] });
  });

  it("starts a key's next message once the one before released the key", async () => {
    const started: number[] = [];
    const nextStarted = deferred();
    const outcome = await runKeyLanes(
      work(['a', 'a', 'a'], async (index, release) => {
        started.push(index);
        if (index === 1) nextStarted.resolve();
        release();
        // Message 0 ends only once message 1, of the same key, has started: unreleased, never.
        if (index === 0) await nextStarted.promise;
        return { handled: index };
      }),
    );
    expect(started).toEqual([0, 1, 2]);
    expect(outcome).toEqual({ handled: [0, 1, 2] });
  });

  it('keeps one key in order while its messages do not release it', async () => {
    const events: string[] = [];
    await runKeyLanes(
      work(['a', 'a'], async (index) => {
        events.push(`start ${index}`);
        await Promise.resolve();
        events.push(`end ${index}`);
        return { handled: index };
      }),
    );
    expect(events).toEqual(['start 0', 'end 0', 'start 1', 'end 1']);
  });

  it('runs strictly in offset order with one lane at a time, releases or not', async () => {
    const events: string[] = [];
    await runKeyLanes(
      work(
        ['a', 'b', 'c'],
        async (index, release) => {
          release();
          events.push(`start ${index}`);
          await Promise.resolve();
          events.push(`end ${index}`);
          return { handled: index };
        },
        { lanesAtOnce: 1 },
      ),
    );
    expect(events).toEqual(['start 0', 'end 0', 'start 1', 'end 1', 'start 2', 'end 2']);
  });

  it('never runs more lanes at once than it may', async () => {
    let running = 0;
    let most = 0;
    const gates = [deferred(), deferred(), deferred(), deferred()];
    const run = runKeyLanes(
      work(
        ['a', 'b', 'c', 'd'],
        async (index) => {
          running += 1;
          most = Math.max(most, running);
          await gates[index]?.promise;
          running -= 1;
          return { handled: index };
        },
        { lanesAtOnce: 2 },
      ),
    );
    for (const gate of gates) {
      await Promise.resolve();
      gate.resolve();
    }
    expect(await run).toEqual({ handled: [0, 1, 2, 3] });
    expect(most).toBe(2);
  });

  it('answers the prefix before a halted message, and starts nothing after the halt', async () => {
    const started: number[] = [];
    const outcome = await runKeyLanes(
      work(
        ['a', 'b', 'a', 'b', 'c'],
        (index) => {
          started.push(index);
          return index === 2 ? Promise.resolve({ halted: 'redis down' }) : done(index);
        },
        { lanesAtOnce: 2 },
      ),
    );
    // Lane a halted at 2; lane b may have handled 3 meanwhile, past the halt, so it is not
    // answered; lane c, waiting for a free lane, never started.
    expect(outcome).toEqual({ handled: [0, 1], halt: 'redis down' });
    expect(started).not.toContain(4);
  });

  it('leaves a message handled past a halt in the same key out of the prefix', async () => {
    const secondHandled = deferred();
    const outcome = await runKeyLanes(
      work(['a', 'a', 'a'], async (index, release) => {
        release();
        // Message 1 halts after message 2, of the same key, was handled.
        if (index === 1) {
          await secondHandled.promise;
          return { halted: 'redis down' };
        }
        if (index === 2) secondHandled.resolve();
        return { handled: index };
      }),
    );
    expect(outcome).toEqual({ handled: [0], halt: 'redis down' });
  });

  it('keeps the first halt when several lanes halt', async () => {
    const firstHalted = deferred();
    const outcome = await runKeyLanes(
      work(['a', 'b'], async (index) => {
        if (index === 0) {
          firstHalted.resolve();
          return { halted: 'first' };
        }
        await firstHalted.promise;
        return { halted: 'second' };
      }),
    );
    expect(outcome).toEqual({ handled: [], halt: 'first' });
  });

  it('starts nothing once mayStart says no, and answers what was handled before', async () => {
    let open = true;
    const outcome = await runKeyLanes(
      work(
        ['a', 'a', 'a'],
        (index) => {
          if (index === 1) open = false;
          return done(index);
        },
        { mayStart: () => open },
      ),
    );
    expect(outcome).toEqual({ handled: [0, 1] });
  });

  it('rejects with a bug once every lane has settled', async () => {
    const bug = new TypeError('bug');
    const otherLaneEnded = deferred();
    let otherEnded = false;
    const run = runKeyLanes(
      work(['a', 'b'], async (index) => {
        if (index === 0) {
          await otherLaneEnded.promise;
          throw bug;
        }
        otherEnded = true;
        otherLaneEnded.resolve();
        return { handled: index };
      }),
    );
    await expect(run).rejects.toBe(bug);
    expect(otherEnded).toBe(true);
  });

  it('answers nothing for no messages', async () => {
    expect(await runKeyLanes(work([], done))).toEqual({ handled: [] });
  });
});
