/**
 * Plays the fault schedule: the sequential phase one fault at a time, then the overlapping phase
 * on its beat, where a fault waits for its target to be free (an instance is not killed while it
 * is still restarting) and a fault on a shared service for every other one to be over (two Kafka
 * nodes down of three is no quorum). Records each fault as it was injected.
 */
import type { InjectedFault } from './chaos-facts.js';
import { isShared, type PlannedFault } from './fault-schedule.js';
import type { Injector } from './inject.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Options of {@link runFaults}. */
export interface RunFaultsOptions {
  readonly plan: readonly PlannedFault[];
  readonly injector: Injector;
  /** Stops launching faults once it says true (the run is failing). */
  readonly stopped: () => boolean;
  readonly progress: (line: string) => void;
}

/** Injects the scheduled faults; resolves with them once the last has recovered. */
export async function runFaults(o: RunFaultsOptions): Promise<InjectedFault[]> {
  const faults: InjectedFault[] = [];
  const open = new Map<number, PlannedFault>();
  let next = 1;
  const inject = async (fault: PlannedFault): Promise<void> => {
    const id = next;
    next += 1;
    const overlapping = open.size > 0;
    open.set(id, fault);
    try {
      const struck = await o.injector.inject(fault);
      faults.push({ id, kind: fault.kind, ...struck, overlapping });
      const took = ((struck.recoveredAt - struck.injectedAt) / 1000).toFixed(1);
      o.progress(
        `fault ${id}/${o.plan.length} ${fault.kind} ${struck.target}: back after ${took} s`,
      );
    } finally {
      open.delete(id);
    }
  };
  const sequential = o.plan.filter((f) => f.phase === 'sequential');
  const overlapping = o.plan.filter((f) => f.phase === 'overlapping');
  for (const fault of sequential) {
    await sleep(fault.startMs);
    if (o.stopped()) return faults;
    await inject(fault);
  }
  const start = Date.now();
  const running: Promise<void>[] = [];
  // A fault that failed (its target never came back) ends the phase: no more are launched, and
  // the failure is the run's, not an unhandled rejection while later faults still wait their turn.
  let failed = false;
  const busy = (fault: PlannedFault) =>
    [...open.values()].some(
      (f) => f.target === fault.target || (isShared(fault.kind) && isShared(f.kind)),
    );
  for (const fault of overlapping) {
    await sleep(Math.max(0, start + fault.startMs - Date.now()));
    while (busy(fault) && !o.stopped() && !failed) await sleep(100);
    if (o.stopped() || failed) break;
    // `inject` marks the fault open before its first await: the next one sees it.
    const injecting = inject(fault);
    injecting.catch(() => (failed = true));
    running.push(injecting);
  }
  await Promise.all(running);
  return faults.sort((a, b) => a.id - b.id);
}
