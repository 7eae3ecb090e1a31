/**
 * The run's gate: every stage process twice over and the example's tool workers, each instance a
 * slot (`validate#2`, `worker#1`) that a fault may kill (and start again under the same instance
 * id, so Kafka fences the dead one's transactions) or pause. A process that ends without the run
 * having killed it is a failure of the run, named with its log, with one exception: an instance
 * that stops fenced (the broker aborted the transaction it had open, or a newer producer took its
 * transactional id) stops as it must, and the fleet starts it again, as an orchestrator would:
 * after a pause that is the expected end of a zombie; at any other time it is counted apart.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { EXAMPLE_WORKER } from '@toolgate/platform';
import type { Child } from '../pipeline/children.js';
import type { FencedRestart } from './chaos-facts.js';
import {
  envAs,
  freePort,
  GATE_STAGES,
  gateStage,
  readyOnPort,
  REPO_ROOT,
  startOnceMore,
  type StartOptions,
  type Starter,
} from '../pipeline/start-systems.js';

/** One instance: what starts it, and its process now. */
interface Slot {
  readonly target: string;
  readonly starter: Starter;
  child: Child;
  /** Set while the fleet starts the instance again after it stopped fenced on its own. */
  restarting?: Promise<void> | undefined;
}

/** The running instances. */
export interface Fleet {
  /** Every instance's target name, in start order. */
  readonly targets: readonly string[];
  /** SIGKILLs `target`, waits until it is gone, starts it again and waits until it is ready. */
  kill(target: string): Promise<void>;
  /**
   * SIGSTOPs `target`, SIGCONTs it `holdMs` later, and watches it for `wakeWithinMs`: `continued`
   * when it is still running then; `restarted` when it stopped fenced on waking and was started
   * again and is ready. Rejects (and fails the run) when it ends for any other reason.
   */
  pause(target: string, holdMs: number, wakeWithinMs: number): Promise<Woke>;
  /**
   * Rejects as soon as an instance ends that the run did not kill, unless it stopped fenced (its
   * log says `kafka_fenced`): such an instance is started again and listed in `fencedRestarts`.
   */
  readonly failed: Promise<never>;
  /** Instances that stopped fenced outside a pause's watch and were started again, with when. */
  fencedRestarts(): readonly FencedRestart[];
  /** From now on an instance that ends is the run's doing (the run is ending). */
  standDown(): void;
}

/** How a paused instance came back, and when (ms since the epoch). */
export interface Woke {
  readonly how: 'continued' | 'restarted';
  readonly at: number;
}

/**
 * The fatal line a stage loop or tool worker writes when its producer was fenced: what an
 * instance paused past its transaction timeout writes on waking.
 */
const FENCED_LINE = '"code":"kafka_fenced"';

const logSize = (child: Child) => (existsSync(child.log) ? statSync(child.log).size : 0);

const sleep = (ms: number) => new Promise<'awake'>((r) => setTimeout(() => r('awake'), ms));

/** What {@link startFleet} needs beyond the gate's start options. */
export interface FleetOptions {
  readonly instancesPerStage: number;
  readonly toolWorkers: number;
  /** Variables every tool worker gets besides its own. */
  readonly workerEnv: Readonly<Record<string, string>>;
}

const NODE_FLAGS = ['--no-turbo-inline-js-wasm-calls'];

/**
 * Instances started at once once each stage's first is up: five tsx processes starting together
 * on a busy two-core machine took more than 90 s to connect to Redis.
 */
const WAVE = 2;

/** The example's tool worker, with its real handlers, as instance `worker-<n>`. */
function exampleWorker(o: StartOptions, f: FleetOptions, n: number, port: number): Starter {
  const name = `worker-${n}`;
  return {
    name,
    start() {
      const child = o.children.start({
        name,
        args: [
          ...NODE_FLAGS,
          '--import',
          'tsx',
          join(REPO_ROOT, 'examples/billing/tool-worker.ts'),
        ],
        env: {
          ...envAs(o, EXAMPLE_WORKER.principal, o.gate, name),
          TOOLGATE_REDIS_URL: o.gate.workerRedisUrl,
          TOOLGATE_HTTP_PORT: String(port),
          ...o.gateEnv,
          ...f.workerEnv,
        },
      });
      return { child, ready: () => readyOnPort(name, child, port, o.readyWithinMs) };
    },
  };
}

/**
 * Starts the instances in waves: the first instance of each stage alone (each registers its
 * schemas, and the registry answers several stages at once too late), then the rest
 * {@link WAVE} at a time. Resolves once every one is ready.
 */
export async function startFleet(o: StartOptions, f: FleetOptions): Promise<Fleet> {
  const slots = new Map<string, Slot>();
  const firsts: { target: string; starter: Starter }[] = [];
  const rest: { target: string; starter: Starter }[] = [];
  for (let n = 1; n <= f.instancesPerStage; n += 1) {
    for (const gate of GATE_STAGES) {
      const target = `${gate.name}#${n}`;
      const starter = gateStage(o, gate, await freePort(), `${gate.name}-${n}`);
      (n === 1 ? firsts : rest).push({ target, starter });
    }
  }
  for (let n = 1; n <= f.toolWorkers; n += 1)
    rest.push({ target: `worker#${n}`, starter: exampleWorker(o, f, n, await freePort()) });
  const starters = [
    ...firsts.map((first) => [first]),
    ...Array.from({ length: Math.ceil(rest.length / WAVE) }, (_, i) =>
      rest.slice(i * WAVE, (i + 1) * WAVE),
    ),
  ];

  let fail: (error: Error) => void = () => undefined;
  const failed = new Promise<never>((_, reject) => (fail = reject));
  failed.catch(() => undefined);
  let standingDown = false;
  const killing = new Set<Child>();
  // Paused by the run and not yet seen to survive waking: its end is the pause's to judge.
  const pausing = new Set<Child>();
  const fenced: FencedRestart[] = [];
  // An instance's log outlives its restarts: what one life wrote starts where the file ended.
  const wroteFenced = (child: Child, from: number) =>
    readFileSync(child.log).subarray(from).toString('utf8').includes(FENCED_LINE);
  const watch = (target: string, child: Child) => {
    const logFrom = logSize(child);
    void child.exited.then((how) => {
      if (standingDown || killing.has(child) || pausing.has(child)) return;
      const slot = slots.get(target);
      if (slot?.child !== child || !wroteFenced(child, logFrom)) {
        fail(new Error(`${target} (${child.name}) exited on its own (${how}); see ${child.log}`));
        return;
      }
      fenced.push({ target, at: Date.now() });
      o.progress(`${target} stopped fenced; starting it again (see ${child.log})`);
      slot.restarting = started(target, slot.starter)
        .then(
          (next) => void (slot.child = next),
          (error: unknown) => fail(error instanceof Error ? error : new Error(String(error))),
        )
        .finally(() => (slot.restarting = undefined));
    });
  };
  // As a supervisor would: a stage that cannot reach Redis or the registry at start exits, and is
  // started again until it is up or the bound is spent (a restart during a Redis outage).
  const started = async (target: string, starter: Starter): Promise<Child> => {
    const deadline = Date.now() + (o.readyWithinMs ?? 90_000);
    for (;;) {
      try {
        const child = await startOnceMore(starter, o.progress);
        watch(target, child);
        return child;
      } catch (error) {
        const stale = o.children.all.filter((c) => c.name === starter.name && !c.hasExited());
        for (const c of stale) process.kill(c.pid, 'SIGKILL');
        await Promise.all(stale.map((c) => c.exited));
        if (Date.now() > deadline) throw error;
        o.progress(`${target} did not start twice; starting it again`);
      }
    }
  };

  for (const [i, wave] of starters.entries()) {
    o.progress(
      `starting ${wave.map((w) => w.target).join(', ')} (wave ${i + 1}/${starters.length}; logs in ${o.logDir})`,
    );
    await Promise.all(
      wave.map(async ({ target, starter }) =>
        slots.set(target, { target, starter, child: await started(target, starter) }),
      ),
    );
  }
  // A fault aimed at an instance being started again waits until it is up.
  const slotOf = async (target: string): Promise<Slot> => {
    const slot = slots.get(target);
    if (slot === undefined) throw new RangeError(`no instance ${target}`);
    await slot.restarting;
    return slot;
  };
  return {
    targets: [...slots.keys()],
    async kill(target) {
      const slot = await slotOf(target);
      killing.add(slot.child);
      if (!slot.child.hasExited()) process.kill(slot.child.pid, 'SIGKILL');
      await slot.child.exited;
      slot.child = await started(target, slot.starter);
    },
    async pause(target, holdMs, wakeWithinMs) {
      const slot = await slotOf(target);
      const child = slot.child;
      const logFrom = logSize(child);
      pausing.add(child);
      process.kill(child.pid, 'SIGSTOP');
      await sleep(holdMs);
      if (!child.hasExited()) process.kill(child.pid, 'SIGCONT');
      const continuedAt = Date.now();
      const woke = await Promise.race([child.exited, sleep(wakeWithinMs)]);
      if (woke === 'awake') {
        pausing.delete(child);
        if (!child.hasExited()) return { how: 'continued', at: continuedAt };
      }
      if (standingDown) return { how: 'continued', at: continuedAt };
      if (!wroteFenced(child, logFrom)) {
        const error = new Error(
          `${target} (${child.name}) ended after a pause, not fenced; see ${child.log}`,
        );
        fail(error);
        throw error;
      }
      o.progress(`${target} woke fenced and stopped; starting it again`);
      slot.child = await started(target, slot.starter);
      return { how: 'restarted', at: Date.now() };
    },
    failed,
    fencedRestarts: () => [...fenced],
    standDown() {
      standingDown = true;
      // A stopped process cannot end on SIGTERM.
      for (const slot of slots.values())
        if (!slot.child.hasExited()) process.kill(slot.child.pid, 'SIGCONT');
    },
  };
}
