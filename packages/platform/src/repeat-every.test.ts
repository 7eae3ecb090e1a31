import { describe, expect, it } from 'vitest';
import { repeatEvery } from './repeat-every.js';

describe('repeatEvery', () => {
  it('runs one job at a time, goes on after a failure, and stop waits for the run in hand', async () => {
    let active = 0;
    let most = 0;
    let runs = 0;
    const errors: unknown[] = [];
    let third: () => void = () => undefined;
    const reachedThird = new Promise<void>((resolve) => (third = resolve));
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const repetition = repeatEvery(
      1,
      async () => {
        active += 1;
        most = Math.max(most, active);
        runs += 1;
        try {
          if (runs === 1) throw new Error('first run fails');
          if (runs === 3) {
            third();
            await held;
          }
        } finally {
          active -= 1;
        }
      },
      (error) => errors.push(error),
    );
    await reachedThird;
    const stopped = repetition.stop();
    let done = false;
    void stopped.then(() => (done = true));
    await Promise.resolve();
    expect(done).toBe(false);
    release();
    await stopped;
    expect(runs).toBe(3);
    expect(most).toBe(1);
    expect(errors).toHaveLength(1);
  });
});
