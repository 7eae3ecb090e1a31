import { describe, expect, it } from 'vitest';
import { seconds, waitUntilReady, type Attempt } from './wait.js';

const silent = { line: () => undefined };

describe('waitUntilReady', () => {
  it('returns once an attempt reports ready', async () => {
    let calls = 0;
    const attempt = (): Promise<Attempt> =>
      Promise.resolve(++calls < 3 ? { ready: false, why: 'not yet' } : { ready: true });
    const outcome = await waitUntilReady('x', attempt, silent, {
      deadlineMs: 5_000,
      intervalMs: 1,
    });
    expect(outcome.ready).toBe(true);
    expect(calls).toBe(3);
  });

  it('gives up at the deadline with the last reason', async () => {
    const attempt = (): Promise<Attempt> =>
      Promise.resolve({ ready: false, why: 'connection refused' });
    const outcome = await waitUntilReady('x', attempt, silent, { deadlineMs: 30, intervalMs: 5 });
    expect(outcome).toEqual({ ready: false, why: 'connection refused', timedOut: true });
  });

  it('stops at once when the process it waits for has died', async () => {
    const attempt = (): Promise<Attempt> => Promise.resolve({ ready: false, why: 'refused' });
    const outcome = await waitUntilReady('x', attempt, silent, {
      deadlineMs: 60_000,
      abandon: () => 'exited (code 1) during start-up',
    });
    expect(outcome).toEqual({
      ready: false,
      why: 'exited (code 1) during start-up',
      timedOut: false,
    });
  });

  it('prints progress while it waits', async () => {
    const lines: string[] = [];
    const attempt = (): Promise<Attempt> => Promise.resolve({ ready: false, why: 'refused' });
    await waitUntilReady(
      'kafka: waiting',
      attempt,
      { line: (l) => lines.push(l) },
      {
        deadlineMs: 40,
        intervalMs: 5,
        progressEveryMs: 10,
      },
    );
    expect(lines.length).toBeGreaterThan(0);
    expect(lines[0]).toMatch(/^kafka: waiting \(.* of .*: refused\)$/);
  });
});

describe('seconds', () => {
  it('shows tenths below ten seconds and whole seconds above', () => {
    expect(seconds(4_230)).toBe('4.2 s');
    expect(seconds(95_400)).toBe('95 s');
  });
});
