import { describe, expect, it } from 'vitest';
import type { PlannedFault } from './fault-schedule.js';
import type { Injector, Struck } from './inject.js';
import { runFaults } from './run-faults.js';

const overlapping = (target: string, startMs: number): PlannedFault => ({
  phase: 'overlapping',
  kind: 'kill_stage',
  target,
  startMs,
  holdMs: 0,
});

describe('runFaults in the overlapping phase', () => {
  it('rejects with the first fault that failed and launches none after it', async () => {
    const launched: string[] = [];
    let refuse: (error: Error) => void = () => undefined;
    const injector: Injector = {
      inject(fault) {
        launched.push(fault.target);
        if (fault.target === 'validate#1')
          return new Promise<Struck>((_, reject) => (refuse = reject));
        const at = Date.now();
        return Promise.resolve({ target: fault.target, injectedAt: at, recoveredAt: at });
      },
      release: () => undefined,
    };
    const plan = [overlapping('validate#1', 0), overlapping('confirm#1', 0)];
    const later = overlapping('execute#1', 300);
    const running = runFaults({
      plan: [...plan, later],
      injector,
      stopped: () => false,
      progress: () => undefined,
    });
    // The first fault fails while the third still waits for its start: no unhandled rejection.
    while (launched.length < plan.length) await new Promise((r) => setImmediate(r));
    refuse(new Error('validate#1 not ready after 180000 ms'));
    await expect(running).rejects.toThrow('validate#1 not ready');
    expect(launched).toEqual(['validate#1', 'confirm#1']);
  });
});
