/**
 * The chaos run's faults, planned before the run from its seed: which fault, on what, when, and
 * for how long. Pure. The schedule has two phases: first one fault at a time (each begins a short gap
 * after the one before has recovered, so a breach can be laid at one fault's door), then
 * overlapping (faults begin on a fixed beat shorter than a fault lasts, so several are open at
 * once, on different targets, as in a bad afternoon in production).
 */
import { seededRandom, type SeededRandom } from '../core/seeded-random.js';
import { GATE_STAGES } from '../pipeline/start-systems.js';
import type { FaultKind } from './chaos-facts.js';

/** What a run has to break. */
export interface FaultTargets {
  readonly instancesPerStage: number;
  readonly toolWorkers: number;
  /** Kafka nodes; fewer than three means no node may be killed (one would stop the cluster). */
  readonly kafkaNodes: number;
  /** A Redis Cluster (a primary may be killed); else one server (only the outage). */
  readonly redisCluster: boolean;
}

/** How long each fault stays open before its target is brought back, in ms. */
export interface FaultHolds {
  /** A stage's SIGSTOP lasts past the consumer session timeout: the group moves on without it. */
  readonly stopMs: number;
  /** A tool worker's lasts past the session timeout and the ledger lease of its running command. */
  readonly workerStopMs: number;
  /** A killed Kafka node, Redis primary or registry stays down this long before its restart. */
  readonly downMs: number;
  /** Every Redis process stopped this long. */
  readonly outageMs: number;
}

/** One planned fault. */
export interface PlannedFault {
  readonly phase: 'sequential' | 'overlapping';
  readonly kind: FaultKind;
  /** `validate#2`, `worker#1`, `kafka-3`, `redis-primary#1` (by rank now), `registry`, `redis`. */
  readonly target: string;
  /**
   * Sequential: the gap after the previous fault recovered. Overlapping: the offset from the
   * start of the overlapping phase.
   */
  readonly startMs: number;
  /** How long the target stays killed or stopped before it is brought back (0: at once). */
  readonly holdMs: number;
}

/** What {@link planFaults} needs. */
export interface ScheduleOptions {
  readonly seed: number;
  /** Faults in all. */
  readonly count: number;
  /** Which kinds the run injects, and how often each relative to the others. */
  readonly weights: Readonly<Partial<Record<FaultKind, number>>>;
  /** At most this many faults of a kind (a short run's single Redis outage). */
  readonly limits?: Readonly<Partial<Record<FaultKind, number>>>;
  readonly targets: FaultTargets;
  readonly holds: FaultHolds;
  /** The share of `count` injected one at a time, 0 to 1. */
  readonly sequentialShare: number;
  /** Gap after a sequential fault's recovery, drawn from this range, ms. */
  readonly gapMs: readonly [number, number];
  /** The beat of the overlapping phase: one fault begins every so many ms. */
  readonly beatMs: number;
}

/** The kinds that need a particular stack, and what each needs. */
function possible(kind: FaultKind, t: FaultTargets): boolean {
  switch (kind) {
    case 'kill_kafka_node':
      return t.kafkaNodes >= 3;
    case 'kill_redis_primary':
      return t.redisCluster;
    case 'kill_worker':
    case 'stop_worker':
      return t.toolWorkers > 0;
    case 'kill_stage':
    case 'stop_stage':
      return t.instancesPerStage > 0;
    case 'redis_outage':
    case 'kill_registry':
      return true;
  }
}

/** Every target of `kind`, in a fixed order. */
export function targetsOf(kind: FaultKind, t: FaultTargets): string[] {
  const numbered = (name: string, n: number) =>
    Array.from({ length: n }, (_, i) => `${name}#${i + 1}`);
  switch (kind) {
    case 'kill_stage':
    case 'stop_stage':
      return GATE_STAGES.flatMap((s) => numbered(s.name, t.instancesPerStage));
    case 'kill_worker':
    case 'stop_worker':
      return numbered('worker', t.toolWorkers);
    case 'kill_kafka_node':
      return Array.from({ length: t.kafkaNodes }, (_, i) => `kafka-${i + 1}`);
    case 'kill_redis_primary':
      return numbered('redis-primary', 3);
    case 'redis_outage':
      return ['redis'];
    case 'kill_registry':
      return ['registry'];
  }
}

/**
 * Kinds that stop a whole shared service: never two of them open at once (two Kafka nodes down
 * of three leaves no quorum; the registry and Redis are single points the run restores).
 */
const SHARED: ReadonlySet<FaultKind> = new Set([
  'kill_kafka_node',
  'kill_redis_primary',
  'redis_outage',
  'kill_registry',
]);

/** Whether `kind` stops a shared service (see {@link SHARED}). */
export function isShared(kind: FaultKind): boolean {
  return SHARED.has(kind);
}

/** How long a fault of `kind` holds its target. */
export function holdOf(kind: FaultKind, holds: FaultHolds): number {
  switch (kind) {
    case 'kill_stage':
    case 'kill_worker':
      return 0;
    case 'stop_stage':
      return holds.stopMs;
    case 'stop_worker':
      return holds.workerStopMs;
    case 'redis_outage':
      return holds.outageMs;
    case 'kill_kafka_node':
    case 'kill_redis_primary':
    case 'kill_registry':
      return holds.downMs;
  }
}

/** A kind drawn by weight among those the stack allows. */
function drawKind(random: SeededRandom, kinds: readonly [FaultKind, number][]): FaultKind {
  const total = kinds.reduce((sum, [, w]) => sum + w, 0);
  let at = random.next() * total;
  for (const [kind, weight] of kinds) {
    at -= weight;
    if (at < 0) return kind;
  }
  const last = kinds.at(-1);
  if (last === undefined) throw new RangeError('no fault kind the stack allows');
  return last[0];
}

/**
 * The run's faults, in injection order. Every allowed kind of positive weight appears at least
 * once when `count` allows (so a short run still tries each); kill faults on a stage take each
 * instance in turn, so every instance is killed (and restarted under its own id) again and again.
 *
 * @throws RangeError when no weighted kind is possible on `targets` or an option is out of range.
 */
export function planFaults(o: ScheduleOptions): PlannedFault[] {
  if (!Number.isInteger(o.count) || o.count < 0) throw new RangeError('count must be ≥ 0');
  if (o.sequentialShare < 0 || o.sequentialShare > 1)
    throw new RangeError('sequentialShare must be from 0 to 1');
  const random = seededRandom(o.seed);
  const kinds = Object.entries(o.weights)
    .filter((e): e is [FaultKind, number] => (e[1] ?? 0) > 0)
    .filter(([kind]) => possible(kind, o.targets));
  if (kinds.length === 0 && o.count > 0) throw new RangeError('no fault kind the stack allows');
  const drawn: FaultKind[] = kinds.map(([kind]) => kind).slice(0, o.count);
  const room = (kind: FaultKind) =>
    drawn.filter((k) => k === kind).length < (o.limits?.[kind] ?? Number.POSITIVE_INFINITY);
  while (drawn.length < o.count) {
    const open = kinds.filter(([kind]) => room(kind));
    if (open.length === 0) throw new RangeError(`the limits allow fewer than ${o.count} faults`);
    drawn.push(drawKind(random, open));
  }
  // Shuffled, so the guaranteed first of each kind is not always at the start.
  for (let i = drawn.length - 1; i > 0; i -= 1) {
    const j = random.int(0, i);
    [drawn[i], drawn[j]] = [drawn[j] as FaultKind, drawn[i] as FaultKind];
  }
  const turns = new Map<FaultKind, number>();
  const sequential = Math.round(o.count * o.sequentialShare);
  return drawn.map((kind, i) => {
    const all = targetsOf(kind, o.targets);
    const turn = turns.get(kind) ?? random.int(0, all.length - 1);
    turns.set(kind, turn + 1);
    const target = all[turn % all.length] ?? kind;
    const holdMs = holdOf(kind, o.holds);
    return i < sequential
      ? { phase: 'sequential', kind, target, startMs: random.int(...o.gapMs), holdMs }
      : { phase: 'overlapping', kind, target, startMs: (i - sequential) * o.beatMs, holdMs };
  });
}
