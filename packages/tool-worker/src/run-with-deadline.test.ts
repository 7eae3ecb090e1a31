import { describe, expect, it } from 'vitest';
import { DeadlineExceeded, runWithDeadline } from './run-with-deadline.js';

/** A promise that settles when `signal` aborts, with the abort reason as rejection. */
const untilAborted = (signal: AbortSignal) =>
  new Promise<never>((_, reject) => {
    signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true });
  });

describe('runWithDeadline', () => {
  it("returns the handler's answer, not aborted, when it answers before the deadline", async () => {
    let seen: AbortSignal | undefined;
    const end = await runWithDeadline(
      (signal) => {
        seen = signal;
        return Promise.resolve(42);
      },
      { msLeft: 60_000, graceMs: 10 },
    );
    expect(end).toEqual({ kind: 'answered', value: 42, aborted: false });
    expect(seen?.aborted).toBe(false);
  });

  it('aborts the signal at the deadline and reports a handler that stops as aborted', async () => {
    const end = await runWithDeadline(untilAborted, { msLeft: 20, graceMs: 60_000 });
    expect(end).toMatchObject({ kind: 'threw', aborted: true });
    expect(end.kind === 'threw' && end.error).toBeInstanceOf(DeadlineExceeded);
  });

  it('abandons a handler that ignores the abort once the grace is over', async () => {
    const never = new Promise<number>(() => undefined);
    const end = await runWithDeadline(() => never, { msLeft: 5, graceMs: 5 });
    expect(end).toEqual({ kind: 'abandoned' });
  });

  it('starts the handler with the signal aborted when no time is left', async () => {
    const end = await runWithDeadline((signal) => Promise.resolve(signal.aborted), {
      msLeft: 0,
      graceMs: 10,
    });
    expect(end).toEqual({ kind: 'answered', value: true, aborted: true });
  });

  it('reports a synchronous throw as thrown, not aborted', async () => {
    const end = await runWithDeadline(
      () => {
        throw new RangeError('bug');
      },
      { msLeft: 60_000, graceMs: 10 },
    );
    expect(end).toMatchObject({ kind: 'threw', aborted: false });
    expect(end.kind === 'threw' && end.error).toBeInstanceOf(RangeError);
  });
});
