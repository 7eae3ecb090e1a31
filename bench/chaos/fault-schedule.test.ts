import { describe, expect, it } from 'vitest';
import { FAULT_KINDS } from './chaos-facts.js';
import { CHAOS_HOLDS, parseChaosOptions, scheduleOptionsOf } from './chaos-options.js';
import { planFaults, targetsOf, type FaultTargets, type PlannedFault } from './fault-schedule.js';

const FULL: FaultTargets = {
  instancesPerStage: 2,
  toolWorkers: 2,
  kafkaNodes: 3,
  redisCluster: true,
};
const QUICK: FaultTargets = {
  instancesPerStage: 2,
  toolWorkers: 2,
  kafkaNodes: 1,
  redisCluster: false,
};

const full = (argv: string[] = []) => planFaults(scheduleOptionsOf(parseChaosOptions(argv), FULL));
const quick = (argv: string[] = []) =>
  planFaults(scheduleOptionsOf(parseChaosOptions(['--quick', ...argv]), QUICK));

const count = (plan: readonly PlannedFault[], kind: string) =>
  plan.filter((f) => f.kind === kind).length;

/** The most faults open at once if each lasted `lastsMs` from its planned start. */
function mostOpen(plan: readonly PlannedFault[], lastsMs: number): number {
  const starts = plan.filter((f) => f.phase === 'overlapping').map((f) => f.startMs);
  return Math.max(0, ...starts.map((s) => starts.filter((t) => t <= s && s < t + lastsMs).length));
}

describe('planFaults', () => {
  it('is the same plan for the same seed, and another for another seed', () => {
    expect(full(['--seed', '7'])).toEqual(full(['--seed', '7']));
    expect(full(['--seed', '7'])).not.toEqual(full(['--seed', '8']));
  });

  it('plans a full run of at least 200 faults, every kind at least once, sequential first', () => {
    const plan = full();
    expect(plan.length).toBeGreaterThanOrEqual(200);
    for (const kind of FAULT_KINDS) expect(count(plan, kind)).toBeGreaterThan(0);
    const phases = plan.map((f) => f.phase);
    const firstOverlapping = phases.indexOf('overlapping');
    expect(firstOverlapping).toBeGreaterThan(0);
    expect(phases.slice(firstOverlapping).every((p) => p === 'overlapping')).toBe(true);
    expect(count(plan, 'kill_stage')).toBeGreaterThan(plan.length / 3);
  });

  it('kills every stage instance, each more than once, in a full run', () => {
    const plan = full();
    const kills = targetsOf('kill_stage', FULL).map(
      (t) => plan.filter((f) => f.kind === 'kill_stage' && f.target === t).length,
    );
    expect(Math.min(...kills)).toBeGreaterThanOrEqual(2);
  });

  it('keeps several faults open at once in the overlapping phase', () => {
    // A stage's kill and restart takes about ten seconds on the machine the run is made for.
    expect(mostOpen(full(), 10_000)).toBeGreaterThanOrEqual(3);
    expect(mostOpen(quick(), 10_000)).toBeGreaterThanOrEqual(2);
  });

  it('plans a quick run of a few stage and worker kills and exactly one Redis outage', () => {
    for (const seed of [1, 2, 3, 4, 5]) {
      const plan = quick(['--seed', String(seed)]);
      expect(plan).toHaveLength(6);
      expect(count(plan, 'redis_outage')).toBe(1);
      expect(count(plan, 'kill_worker')).toBeGreaterThanOrEqual(1);
      expect(count(plan, 'kill_stage')).toBeGreaterThanOrEqual(2);
      expect(plan.every((f) => ['kill_stage', 'kill_worker', 'redis_outage'].includes(f.kind)));
    }
  });

  it('never plans a fault the stack cannot take', () => {
    const plan = planFaults({
      ...scheduleOptionsOf(parseChaosOptions([]), QUICK),
      count: 300,
    });
    expect(count(plan, 'kill_kafka_node')).toBe(0);
    expect(count(plan, 'kill_redis_primary')).toBe(0);
  });

  it('stays within its bounds: holds, gaps and the length of the overlapping phase', () => {
    const plan = full();
    const holds = Object.values(CHAOS_HOLDS);
    expect(plan.every((f) => f.holdMs === 0 || holds.includes(f.holdMs))).toBe(true);
    const sequential = plan.filter((f) => f.phase === 'sequential');
    expect(sequential.every((f) => f.startMs >= 1_000 && f.startMs <= 3_000)).toBe(true);
    const overlapping = plan.filter((f) => f.phase === 'overlapping');
    // The last fault of the phase begins within ten minutes of its first.
    expect(Math.max(...overlapping.map((f) => f.startMs))).toBeLessThanOrEqual(600_000);
    expect(plan.every((f) => f.holdMs <= 20_000)).toBe(true);
  });

  it('refuses a schedule it cannot make', () => {
    const options = scheduleOptionsOf(parseChaosOptions(['--quick']), QUICK);
    expect(() => planFaults({ ...options, weights: { kill_kafka_node: 1 } })).toThrow(RangeError);
    expect(() =>
      planFaults({ ...options, limits: { kill_stage: 1, kill_worker: 1, redis_outage: 1 } }),
    ).toThrow(/limits allow fewer/);
  });
});
