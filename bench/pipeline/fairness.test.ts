import { describe, expect, it } from 'vitest';
import { buildMix } from '../core/build-mix.js';
import {
  cpuLine,
  FAIRNESS,
  fairnessVerdict,
  floodPerSecond,
  formatFairness,
  formatOutcomes,
  rateLimited,
  sumOutcomes,
  tenantReads,
  type FairnessRun,
  type TenantRun,
} from './fairness.js';
import { tenantOf } from './traffic.js';

const latency = (p50: number, p99: number) => ({ count: 200, p50, p99, p999: p99, max: p99 });

function tenant(p50: number, p99: number, outcomes: Record<string, number> = { result: 200 }) {
  return { sent: 200, lost: 0, latency: latency(p50, p99), outcomes } satisfies TenantRun;
}

const flood = tenant(60, 300, { result: 400, 'rejected limits/rate_limited': 3600 });

/** Two repetitions: the victim's p99 alone, then beside the flood, per repetition. */
function runs(p99s: readonly (readonly [number, number])[]): FairnessRun[] {
  return p99s.flatMap(([alone, flooded], rep) => [
    { phase: 'alone' as const, rep, victim: tenant(40, alone) },
    { phase: 'flooded' as const, rep, victim: tenant(50, flooded), flood },
  ]);
}

describe('the fairness scenario', () => {
  it('floods at ten times a ceiling of 20 calls/s beside a victim at 10/s', () => {
    expect(FAIRNESS).toMatchObject({ victimPerSecond: 10, tenantCeilingPerSecond: 20 });
    expect(floodPerSecond(FAIRNESS)).toBe(200);
    expect(FAIRNESS.victimTenant).not.toBe(FAIRNESS.floodTenant);
  });

  it("sends each tenant only its own users' valid reads", () => {
    const mix = buildMix({ size: 500, seed: 20261129 });
    for (const name of [FAIRNESS.victimTenant, FAIRNESS.floodTenant]) {
      const reads = tenantReads(mix, name);
      expect(reads.length).toBeGreaterThan(20);
      expect(reads.every((e) => tenantOf(e.user) === name && e.group === 'read')).toBe(true);
      expect(reads.every((e) => e.expected.kind === 'execute')).toBe(true);
    }
    expect(() => tenantReads(mix, 'initech')).toThrow(/no reads of tenant initech/);
  });

  it('passes at twice the unloaded p99 and fails just past it', () => {
    const at = (flooded: number) =>
      fairnessVerdict(latency(40, 100), latency(50, flooded), runs([[100, flooded]]), FAIRNESS);
    expect(at(200)).toMatchObject({ p99Ratio: 2, pass: true, reasons: [] });
    expect(at(201).pass).toBe(false);
    expect(at(201).reasons).toEqual(['p99 ratio 2.01 > 2']);
    expect(at(150).p50Ratio).toBe(1.25);
  });

  it('gives the p99 ratio of each repetition against the alone run of the same repetition', () => {
    const v = fairnessVerdict(
      latency(40, 100),
      latency(50, 150),
      runs([
        [100, 120],
        [80, 200],
        [100, 150],
      ]),
      FAIRNESS,
    );
    expect(v.p99RatioByRepetition).toMatchObject({ median: 1.5, min: 1.2, max: 2.5 });
  });

  it('fails when a victim proposal is refused or lost, whatever its latency', () => {
    const refused: FairnessRun[] = [
      { phase: 'alone', rep: 0, victim: tenant(40, 100) },
      {
        phase: 'flooded',
        rep: 0,
        victim: { ...tenant(40, 100, { result: 198, 'rejected limits/rate_limited': 2 }), lost: 1 },
        flood,
      },
    ];
    const v = fairnessVerdict(latency(40, 100), latency(40, 100), refused, FAIRNESS);
    expect(v.pass).toBe(false);
    expect(v.reasons).toEqual(['2 victim proposals refused', '1 victim proposals lost']);
  });

  it('fails with no latency to compare', () => {
    const empty = { count: 0, p50: NaN, p99: NaN, p999: NaN, max: NaN };
    expect(fairnessVerdict(empty, empty, [], FAIRNESS).reasons).toEqual(['no p99 to compare']);
  });

  it("reports the flood's refusals and ends with the verdict", () => {
    const r = runs([[100, 150]]);
    const lines = formatFairness(
      FAIRNESS,
      r,
      fairnessVerdict(latency(40, 100), latency(50, 150), r, FAIRNESS),
    );
    expect(lines.at(-1)).toBe(
      'fairness: victim p99 1.50× its unloaded value beside a 10× flood (≤ 2×: pass); flood rate_limited 3600 of 200',
    );
    expect(lines[0]).toContain('flood acme at 200/s (10× its ceiling of 20 calls/s');
  });

  it('sums and prints outcome counts, largest first', () => {
    const total = sumOutcomes([flood, undefined, flood]);
    expect(total).toEqual({ result: 800, 'rejected limits/rate_limited': 7200 });
    expect(formatOutcomes(total)).toBe('rejected limits/rate_limited: 7200, result: 800');
    expect(formatOutcomes({})).toBe('none');
  });

  it('gives the cores each process kept busy in each phase, summed over repetitions', () => {
    const r: FairnessRun[] = [
      {
        phase: 'alone',
        rep: 0,
        victim: tenant(40, 100),
        cpuSeconds: { validate: 1 },
        wallMs: 20_000,
      },
      {
        phase: 'alone',
        rep: 1,
        victim: tenant(40, 100),
        cpuSeconds: { validate: 3 },
        wallMs: 20_000,
      },
      {
        phase: 'flooded',
        rep: 0,
        victim: tenant(40, 100),
        flood,
        cpuSeconds: { validate: 10, broker: 5 },
        wallMs: 25_000,
      },
    ];
    expect(cpuLine(r)).toBe(
      'cores busy, alone → beside the flood: validate 0.10 → 0.40, broker 0.00 → 0.20',
    );
    expect(cpuLine(runs([[100, 150]]))).toBe('cores busy: n/a');
  });

  it('counts refusals for a rate at any rung, and nothing else', () => {
    expect(
      rateLimited({
        result: 5,
        'rejected limits/rate_limited': 3,
        'rejected validate/user_rate_limited': 2,
        'rejected limits/run_call_limit': 7,
      }),
    ).toBe(5);
  });
});
