import type { Observation } from '@toolgate/shared';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ObservationTimeoutError } from './agent-client-error.js';
import {
  createObservationRouter,
  DEFAULT_OBSERVATION_TIMEOUT_MS,
  MAX_OBSERVATION_TIMEOUT_MS,
} from './observation-router.js';

const silent = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};

function observation(
  proposalId: string,
  outcome: Observation['outcome'] = 'rejected',
): Observation {
  return {
    proposalId,
    runId: 'run-1',
    requestId: 'req-1',
    outcome,
    disposition: outcome === 'pending_confirmation' ? 'confirm' : 'deny',
    message: `about ${proposalId}`,
    at: '2026-11-29T20:00:00.000Z',
  };
}

describe('createObservationRouter', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('resolves a wait with the terminal observation of its own proposal only', async () => {
    const router = createObservationRouter({ logger: silent });
    const waiting = router.wait('p-1');
    router.deliver(observation('p-2'));
    router.deliver(observation('p-1'));
    expect(await waiting).toEqual(observation('p-1'));
    expect(router.counts()).toEqual({ waiting: 0, tracked: 0 });
  });

  it('keeps the observation of a submitted proposal that arrives before anyone waits', async () => {
    const router = createObservationRouter({ logger: silent });
    router.track('p-1');
    router.deliver(observation('p-1'));
    expect(await router.wait('p-1')).toEqual(observation('p-1'));
    expect(router.counts().tracked).toBe(0);
  });

  it('drops observations of proposals it did not submit and nobody waits for', async () => {
    const router = createObservationRouter({ logger: silent });
    router.deliver(observation('someone-elses'));
    const waiting = router.wait('someone-elses', { timeoutMs: 50 });
    vi.advanceTimersByTime(50);
    await expect(waiting).rejects.toBeInstanceOf(ObservationTimeoutError);
  });

  it('times out with a typed error naming the proposal and the wait', async () => {
    const router = createObservationRouter({ logger: silent });
    const waiting = router.wait('p-slow');
    vi.advanceTimersByTime(DEFAULT_OBSERVATION_TIMEOUT_MS - 1);
    expect(router.counts().waiting).toBe(1);
    vi.advanceTimersByTime(1);
    await expect(waiting).rejects.toMatchObject({
      name: 'ObservationTimeoutError',
      code: 'observation_timeout',
      proposalId: 'p-slow',
      timeoutMs: DEFAULT_OBSERVATION_TIMEOUT_MS,
      message: `no terminal observation for proposal p-slow within ${DEFAULT_OBSERVATION_TIMEOUT_MS} ms`,
    });
    expect(router.counts().waiting).toBe(0);
  });

  it('reports pending_confirmation to onPending and keeps waiting for the terminal one', async () => {
    const router = createObservationRouter({ logger: silent });
    const pending: Observation[] = [];
    const waiting = router.wait('p-1', { onPending: (o) => pending.push(o) });
    router.deliver(observation('p-1', 'pending_confirmation'));
    expect(pending).toEqual([observation('p-1', 'pending_confirmation')]);
    router.deliver(observation('p-1', 'result'));
    expect(await waiting).toEqual(observation('p-1', 'result'));
  });

  it('reports a pending_confirmation that came before the wait', async () => {
    const router = createObservationRouter({ logger: silent });
    router.track('p-1');
    router.deliver(observation('p-1', 'pending_confirmation'));
    const pending: Observation[] = [];
    const waiting = router.wait('p-1', { onPending: (o) => pending.push(o) });
    expect(pending).toHaveLength(1);
    router.deliver(observation('p-1', 'expired'));
    expect((await waiting).outcome).toBe('expired');
  });

  it('keeps waiting when onPending throws, and logs it', async () => {
    const logger = { ...silent, warn: vi.fn() };
    const router = createObservationRouter({ logger });
    const waiting = router.wait('p-1', {
      onPending: () => {
        throw new Error('callback bug');
      },
    });
    router.deliver(observation('p-1', 'pending_confirmation'));
    router.deliver(observation('p-1', 'result'));
    expect((await waiting).outcome).toBe('result');
    expect(logger.warn).toHaveBeenCalledOnce();
  });

  it('answers every waiter of the same proposal', async () => {
    const router = createObservationRouter({ logger: silent });
    const both = Promise.all([router.wait('p-1'), router.wait('p-1')]);
    router.deliver(observation('p-1'));
    expect(await both).toEqual([observation('p-1'), observation('p-1')]);
  });

  it('keeps the first terminal observation when one is delivered again', async () => {
    const router = createObservationRouter({ logger: silent });
    router.track('p-1');
    router.deliver(observation('p-1', 'result'));
    router.deliver(observation('p-1', 'unknown_outcome'));
    expect((await router.wait('p-1')).outcome).toBe('result');
  });

  it('refuses to track a proposal it tracks already, until its answer was awaited', async () => {
    const router = createObservationRouter({ logger: silent });
    expect(router.track('p-1')).toBe(true);
    expect(router.track('p-1')).toBe(false);
    router.deliver(observation('p-1', 'result'));
    expect(router.track('p-1')).toBe(false);
    expect((await router.wait('p-1')).outcome).toBe('result');
    expect(router.track('p-1')).toBe(true);
  });

  it('takes a proposal again after its send failed, keeping what arrived for it meanwhile', async () => {
    const router = createObservationRouter({ logger: silent });
    router.track('p-1');
    router.sendFailed('p-1');
    // The send that failed reached Kafka after all, and the gate answered it.
    router.deliver(observation('p-1', 'result'));
    expect(router.track('p-1')).toBe(true);
    expect(router.track('p-1')).toBe(false);
    expect((await router.wait('p-1')).outcome).toBe('result');
  });

  it('forgets the proposal submitted longest ago beyond its bound', async () => {
    const router = createObservationRouter({ logger: silent, bufferLimit: 2 });
    for (const id of ['p-1', 'p-2', 'p-3']) router.track(id);
    for (const id of ['p-1', 'p-2', 'p-3']) router.deliver(observation(id));
    expect(router.counts().tracked).toBe(2);
    expect((await router.wait('p-3')).proposalId).toBe('p-3');
    expect((await router.wait('p-2')).proposalId).toBe('p-2');
    const forgotten = router.wait('p-1', { timeoutMs: 10 });
    vi.advanceTimersByTime(10);
    await expect(forgotten).rejects.toBeInstanceOf(ObservationTimeoutError);
  });

  it('rejects every waiter, and every later wait, once failed', async () => {
    const router = createObservationRouter({ logger: silent });
    const waiting = router.wait('p-1');
    const error = new Error('closed');
    router.fail(error);
    await expect(waiting).rejects.toBe(error);
    await expect(router.wait('p-2')).rejects.toBe(error);
    expect(router.counts()).toEqual({ waiting: 0, tracked: 0 });
  });

  it.each([0, -1, Number.NaN, Number.POSITIVE_INFINITY])(
    'refuses a timeout of %s',
    async (timeoutMs) => {
      const router = createObservationRouter({ logger: silent });
      await expect(router.wait('p-1', { timeoutMs })).rejects.toBeInstanceOf(RangeError);
    },
  );

  it('refuses a timeout longer than Node timers honour instead of giving up at once', async () => {
    vi.useRealTimers();
    const router = createObservationRouter({ logger: silent });
    for (const timeoutMs of [MAX_OBSERVATION_TIMEOUT_MS + 1, Number.MAX_SAFE_INTEGER]) {
      await expect(router.wait('p-1', { timeoutMs })).rejects.toBeInstanceOf(RangeError);
    }
    const longest = router.wait('p-1', { timeoutMs: MAX_OBSERVATION_TIMEOUT_MS });
    router.deliver(observation('p-1'));
    expect(await longest).toEqual(observation('p-1'));
  });

  it('refuses a buffer bound that is not a positive integer', () => {
    expect(() => createObservationRouter({ logger: silent, bufferLimit: 0 })).toThrow(RangeError);
  });
});
