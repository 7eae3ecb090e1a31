import { describe, expect, it } from 'vitest';
import {
  finalLine,
  ratiosOf,
  summarizeSystem,
  targetsMet,
  type RunRecord,
  type SystemName,
} from './summarize.js';

const latency = (p50: number, p99: number) => ({
  count: 100,
  p50,
  p99,
  p999: p99 * 2,
  max: p99 * 3,
});

function sat(system: SystemName, rep: number, throughput: number, cpuMs = 1): RunRecord {
  return {
    system,
    phase: 'saturation',
    fraction: null,
    offeredPerSec: null,
    rep,
    sent: 1000,
    completed: 1000,
    lost: 0,
    throughput,
    latency: latency(100, 900),
    latencyUnattended: latency(90, 800),
    costs: [
      {
        name: `${system}-a`,
        cpuSeconds: 1,
        cpuMsPerProposal: cpuMs,
        // The second repetition could not read /proc/<pid>/io.
        writeCallsPerProposal: rep === 1 ? Number.NaN : 2 + rep,
        rssMiB: 100 + rep,
      },
    ],
  };
}

function open(
  system: SystemName,
  rep: number,
  fraction: number,
  p50: number,
  p99: number,
  unattended = latency(p50, p99),
): RunRecord {
  return {
    ...sat(system, rep, 50),
    phase: 'open',
    fraction,
    offeredPerSec: 100 * fraction,
    latency: latency(p50, p99),
    latencyUnattended: unattended,
    costs: [],
    lost: rep,
  };
}

/** Saturation and half-load runs of `system`: repetition i takes the i-th of each list. */
function reps(
  system: SystemName,
  saturations: readonly number[],
  halfLoad: readonly (readonly [p50: number, p99: number])[],
): RunRecord[] {
  return [
    ...saturations.map((throughput, rep) => sat(system, rep, throughput)),
    ...halfLoad.map(([p50, p99], rep) => open(system, rep, 0.5, p50, p99)),
  ];
}

/** The spread of one repetition. */
const only = (value: number) => ({ median: value, min: value, max: value, relative: 0 });

describe('summarizeSystem', () => {
  it('takes medians and spreads over repetitions, per load level in ascending order', () => {
    const s = summarizeSystem([
      ...reps(
        'relay',
        [100, 140, 120],
        [
          [10, 40],
          [12, 60],
          [11, 50],
        ],
      ),
      open('relay', 0, 0.25, 5, 20),
    ]);
    expect(s.saturation).toMatchObject({ median: 120, min: 100, max: 140 });
    expect(s.loads.map((l) => l.fraction)).toEqual([0.25, 0.5]);
    expect(s.loads[1]).toMatchObject({ offeredPerSec: 50, lost: 3 });
    expect(s.loads[1]?.p50.median).toBe(11);
    expect(s.loads[1]?.p99.median).toBe(50);
    expect(s.loads[1]?.unattendedP99.median).toBe(50);
    expect(s.costs).toEqual([
      {
        name: 'relay-a',
        cpuMsPerProposal: { median: 1, min: 1, max: 1, relative: 0 },
        writeCallsPerProposal: { median: 3, min: 2, max: 4, relative: 2 / 3 },
        rssMiB: { median: 101, min: 100, max: 102, relative: 2 / 101 },
      },
    ]);
  });
});

describe('ratiosOf', () => {
  it('compares the gate with the relay: saturation, and p50/p99 at half load', () => {
    const relay = summarizeSystem([sat('relay', 0, 200), open('relay', 0, 0.5, 10, 40)]);
    const gate = summarizeSystem([sat('gate', 0, 150), open('gate', 0, 0.5, 13.5, 50)]);
    expect(ratiosOf(relay, gate)).toEqual({
      throughput: 0.75,
      p99AtHalfLoad: 1.25,
      p50DeltaMs: 3.5,
      unattended: { p99AtHalfLoad: 1.25, p50DeltaMs: 3.5 },
      byRepetition: {
        repetitions: 1,
        throughput: only(0.75),
        p99AtHalfLoad: only(1.25),
        p50DeltaMs: only(3.5),
      },
    });
  });

  it("compares the calls no person approves apart: the gate's without its confirmations", () => {
    const relay = summarizeSystem([sat('relay', 0, 200), open('relay', 0, 0.5, 10, 40)]);
    const gate = summarizeSystem([
      sat('gate', 0, 150),
      open('gate', 0, 0.5, 13.5, 80, latency(12, 48)),
      open('gate', 1, 0.5, 14.5, 100, latency(11, 44)),
      open('gate', 2, 0.5, 12.5, 90, latency(13, 52)),
    ]);
    expect(ratiosOf(relay, gate)).toMatchObject({
      throughput: 0.75,
      p99AtHalfLoad: 2.25,
      p50DeltaMs: 3.5,
      unattended: { p99AtHalfLoad: 1.2, p50DeltaMs: 2 },
    });
  });

  it("pairs each repetition of the gate with the relay's of the same number, and gives their spread", () => {
    const relay = summarizeSystem(
      reps(
        'relay',
        [200, 100, 400],
        [
          [10, 40],
          [20, 100],
          [30, 50],
        ],
      ),
    );
    const gate = summarizeSystem([
      ...reps(
        'gate',
        [150, 90, 200],
        [
          [13, 80],
          [21, 110],
          [50, 60],
        ],
      ),
      // Rep 3 has no relay beside it: left out.
      sat('gate', 3, 1),
    ]);
    const by = ratiosOf(relay, gate).byRepetition;
    expect(by.repetitions).toBe(3);
    expect(by.throughput).toMatchObject({ median: 0.75, min: 0.5, max: 0.9 });
    expect(by.p99AtHalfLoad).toMatchObject({ median: 1.2, min: 1.1, max: 2 });
    expect(by.p50DeltaMs).toMatchObject({ median: 3, min: 1, max: 20 });
  });

  it('is NaN where the half-load level was not run', () => {
    const relay = summarizeSystem([sat('relay', 0, 200)]);
    const gate = summarizeSystem([sat('gate', 0, 100)]);
    const r = ratiosOf(relay, gate);
    expect(r.throughput).toBe(0.5);
    expect(r.p99AtHalfLoad).toBeNaN();
    expect(r.p50DeltaMs).toBeNaN();
    expect(r.unattended.p99AtHalfLoad).toBeNaN();
    expect(r.unattended.p50DeltaMs).toBeNaN();
    expect(r.byRepetition.throughput.median).toBe(0.5);
    expect(r.byRepetition.p99AtHalfLoad.median).toBeNaN();
    expect(r.byRepetition.p50DeltaMs.max).toBeNaN();
  });
});

describe('finalLine', () => {
  it('prints the closing line with a signed whole-ms p50 delta', () => {
    expect(finalLine({ throughput: 0.7049, p99AtHalfLoad: 1.3333, p50DeltaMs: 2.6 })).toBe(
      'gate/relay: throughput 0.70, p50 +3 ms, p99 at half load 1.33×',
    );
    expect(finalLine({ throughput: 1, p99AtHalfLoad: 0.9, p50DeltaMs: -1.2 })).toBe(
      'gate/relay: throughput 1.00, p50 -1 ms, p99 at half load 0.90×',
    );
  });
});

describe('targetsMet', () => {
  it('checks each target at its boundary', () => {
    expect(targetsMet({ throughput: 0.5, p99AtHalfLoad: 1.5, p50DeltaMs: 2 })).toEqual({
      throughput: true,
      p50: true,
      p99: true,
    });
    expect(targetsMet({ throughput: 0.49, p99AtHalfLoad: 1.51, p50DeltaMs: 2.1 })).toEqual({
      throughput: false,
      p50: false,
      p99: false,
    });
  });
});
