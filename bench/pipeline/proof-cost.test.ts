import { describe, expect, it } from 'vitest';
import { buildMix, type Expected, type MixEntry } from '../core/build-mix.js';
import {
  formatProofCost,
  measureProofCost,
  proofCountsOf,
  proofSidesOf,
  type ProofCost,
  type ProofTimings,
} from './proof-cost.js';
import { proofSamples } from './proof-samples.js';

const entry = (expected: Expected) => ({ expected }) as MixEntry;

const US: ProofTimings = {
  commandProof: 2,
  commandCheck: 3,
  resultProof: 1,
  resultCheck: 4,
  observationSignature: 30,
  observationCheck: 70,
};

describe('proofCountsOf', () => {
  it('counts a command and a result per call that runs, an observation per proposal and one more per wait', () => {
    const counts = proofCountsOf([
      entry({ kind: 'execute', replay: false }),
      entry({ kind: 'execute', replay: true }),
      entry({ kind: 'confirm' }),
      entry({ kind: 'refused', stage: 'schema', code: 'missing_field' }),
    ]);
    expect(counts).toEqual({ commands: 0.5, results: 0.5, observations: 1.25 });
  });

  it('refuses an empty mix', () => {
    expect(() => proofCountsOf([])).toThrow(RangeError);
  });
});

describe('proofSidesOf', () => {
  it('charges the gate the command proof, the result check and the signature, the worker the other two, the agent the verification', () => {
    const sides = proofSidesOf(US, { commands: 0.5, results: 0.5, observations: 2 });
    expect(sides).toEqual({ gate: 1 + 2 + 60, worker: 1.5 + 0.5, agent: 140 });
  });
});

describe('formatProofCost', () => {
  const cost: ProofCost = {
    usPerOperation: US,
    rounds: 3,
    records: {
      command: { count: 2, meanBytes: 600.4 },
      result: { count: 2, meanBytes: 210 },
      observation: { count: 4, meanBytes: 512 },
    },
    perProposal: { commands: 0.5, results: 0.5, observations: 2 },
    cpuUsPerProposal: { gate: 63, worker: 2, agent: 140 },
  };

  it('says what is measured and what is computed', () => {
    const [title, hmac, ed25519, computed] = formatProofCost(cost);
    expect(title).toContain('measured in this process');
    expect(hmac).toBe(
      '  tool proof (HMAC-SHA256): command 2.0 to prove, 3.0 to check (2 of 600 B on average); ' +
        'result 1.0 to prove, 4.0 to check (2 of 210 B on average)',
    );
    expect(ed25519).toContain('30.0 to sign, 70.0 to verify (4 of 512 B on average)');
    expect(computed).toBe(
      "  computed from the mix's recipe, per proposal 0.50 commands and results and 2.00 " +
        'observations: gate 63.0 µs, worker 2.0 µs, agent 140.0 µs of CPU',
    );
  });

  it("gives the gate's and worker's share of the gate processes' CPU when it is known", () => {
    const computed = formatProofCost(cost, 6.5).at(-1);
    expect(computed).toMatch(/; gate and worker together 1\.0 % of the gate's processes' CPU/);
  });
});

describe('proofSamples and measureProofCost', () => {
  const mix = buildMix({ size: 60, seed: 20261129 });

  it("builds the gate's records of the mix on the prefix's topics", async () => {
    const samples = await proofSamples(mix, 't-x.gate.');
    const runs = mix.filter((e) => e.expected.kind === 'execute' && !e.expected.replay).length;
    const waits = mix.filter((e) => e.expected.kind === 'confirm').length;
    expect(samples.commands).toHaveLength(runs);
    expect(samples.results).toHaveLength(runs);
    expect(samples.observations).toHaveLength(mix.length + waits);
    expect(samples.commands.every((r) => r.topic.startsWith('t-x.gate.toolgate.commands.'))).toBe(
      true,
    );
    expect(new Set(samples.observations.map((r) => r.topic))).toEqual(
      new Set(['t-x.gate.toolgate.observations.acme', 't-x.gate.toolgate.observations.globex']),
    );
  });

  it('times every operation on them and computes the cost per proposal', async () => {
    const samples = await proofSamples(mix, 't-x.gate.');
    const counts = proofCountsOf(mix);
    const cost = measureProofCost(samples, counts, { roundMs: 5, rounds: 1 });
    for (const us of Object.values(cost.usPerOperation)) expect(us).toBeGreaterThan(0);
    expect(cost.records.observation.count).toBe(samples.observations.length);
    expect(cost.cpuUsPerProposal).toEqual(proofSidesOf(cost.usPerOperation, counts));
  });
});
