import { describe, expect, it } from 'vitest';
import { formatReport, formatSpread } from './format-report.js';
import { summarizeSystem, type RunRecord } from './summarize.js';

const run = (
  system: 'relay' | 'gate',
  phase: 'saturation' | 'open',
  throughput: number,
  p50: number,
): RunRecord => ({
  system,
  phase,
  fraction: phase === 'open' ? 0.5 : null,
  offeredPerSec: phase === 'open' ? 100 : null,
  rep: 0,
  sent: 10,
  completed: 10,
  lost: 0,
  throughput,
  latency: { count: 10, p50, p99: p50 * 2, p999: p50 * 3, max: p50 * 4 },
  latencyUnattended: { count: 9, p50: p50 - 1, p99: p50 * 1.5, p999: p50 * 2, max: p50 * 3 },
  costs:
    phase === 'saturation'
      ? [
          {
            name: `${system}-x`,
            cpuSeconds: 1,
            cpuMsPerProposal: 0.25,
            writeCallsPerProposal: 1.5,
            rssMiB: 90,
          },
        ]
      : [],
});

describe('formatSpread', () => {
  it('shows the median, and the range only when the repetitions differ', () => {
    expect(formatSpread({ median: 2, min: 1, max: 3, relative: 1 })).toBe('2.0 [1.0–3.0]');
    expect(formatSpread({ median: 2, min: 2, max: 2, relative: 0 }, 2)).toBe('2.00');
    expect(
      formatSpread({ median: Number.NaN, min: Number.NaN, max: Number.NaN, relative: 0 }),
    ).toBe('n/a');
  });
});

describe('formatReport', () => {
  it('lists saturation, latency and cost per system and ends with the ratios line', () => {
    const relay = summarizeSystem([
      run('relay', 'saturation', 200, 1),
      run('relay', 'open', 100, 10),
    ]);
    const gate = summarizeSystem([run('gate', 'saturation', 100, 1), run('gate', 'open', 95, 14)]);
    const lines = formatReport({
      title: 'quick',
      machine: '2 × test cpu',
      systems: { relay, gate },
      ratios: {
        throughput: 0.5,
        p99AtHalfLoad: 1.4,
        p50DeltaMs: 4,
        unattended: { p99AtHalfLoad: 1.05, p50DeltaMs: -0.6 },
        byRepetition: {
          repetitions: 3,
          throughput: { median: 0.5, min: 0.45, max: 0.62, relative: 0.34 },
          p99AtHalfLoad: { median: 1.4, min: 1.1, max: 2.05, relative: 0.68 },
          p50DeltaMs: { median: 4, min: -1.2, max: 9.6, relative: 2.7 },
        },
      },
      notes: ['something to know'],
    });
    const text = lines.join('\n');
    expect(text).toContain('relay    200.0');
    expect(text).toContain('gate     100.0');
    expect(text).toMatch(/50%\s+100\s+gate\s+14\.0\s+28\.0/);
    expect(text).toMatch(/those no person approves.*\n\s+50%\s+100\s+gate\s+13\.0\s+21\.0\n/);
    expect(text).toMatch(/gate\s+gate-x\s+0\.250\s+1\.50\s+90 MiB/);
    expect(text).toContain('p50 within 2 ms of the relay at half load: 4.0 ms MISSED');
    expect(text).toContain(
      'Without the calls a person approves (not a target): p50 -1 ms, p99 at half load 1.05×',
    );
    expect(text).toContain(
      'By repetition (3, each gate run against the relay run beside it): throughput 0.50 ' +
        '[0.45–0.62], p50 +4 ms [-1 to +10], p99 at half load 1.40× [1.10–2.05]',
    );
    expect(text).toContain('note: something to know');
    expect(text).not.toContain('Proofs of origin');
    expect(lines.at(-1)).toBe('gate/relay: throughput 0.50, p50 +4 ms, p99 at half load 1.40×');
  });

  it("puts the proofs' cost before the targets, with its share of the gate processes' CPU", () => {
    const gate = summarizeSystem([run('gate', 'saturation', 100, 1), run('gate', 'open', 95, 14)]);
    const relay = summarizeSystem([
      run('relay', 'saturation', 200, 1),
      run('relay', 'open', 100, 10),
    ]);
    const spread = (median: number) => ({ median, min: median, max: median, relative: 0 });
    const lines = formatReport({
      title: 'quick',
      machine: '2 × test cpu',
      systems: { relay, gate },
      ratios: {
        throughput: 0.5,
        p99AtHalfLoad: 1.4,
        p50DeltaMs: 4,
        unattended: { p99AtHalfLoad: 1.05, p50DeltaMs: -0.6 },
        byRepetition: {
          repetitions: 1,
          throughput: spread(0.5),
          p99AtHalfLoad: spread(1.4),
          p50DeltaMs: spread(4),
        },
      },
      notes: [],
      proofCost: {
        usPerOperation: {
          commandProof: 2,
          commandCheck: 2,
          resultProof: 2,
          resultCheck: 2,
          observationSignature: 40,
          observationCheck: 90,
        },
        rounds: 3,
        records: {
          command: { count: 1, meanBytes: 500 },
          result: { count: 1, meanBytes: 200 },
          observation: { count: 2, meanBytes: 450 },
        },
        perProposal: { commands: 0.5, results: 0.5, observations: 1 },
        cpuUsPerProposal: { gate: 42, worker: 2, agent: 90 },
      },
    });
    const proofs = lines.findIndex((l) => l.startsWith('Proofs of origin'));
    expect(proofs).toBeGreaterThan(lines.findIndex((l) => l.includes('gate-x')));
    expect(proofs).toBeLessThan(lines.findIndex((l) => l.startsWith('Targets')));
    // gate-x takes 0.25 ms a proposal: 44 µs of proofs are 17.6 % of it.
    expect(lines[proofs + 3]).toMatch(/together 17\.6 % of the gate's processes' CPU/);
  });
});
