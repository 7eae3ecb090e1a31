/**
 * What the proofs of origin cost in CPU, per proposal, measured apart from the pipelines: the
 * HMAC-SHA256 tool proof (execute proves each command and checks each result, the worker checks
 * each command and proves each result) and the Ed25519 observation signature (the stages sign
 * each observation, the agent verifies it). Each operation is timed in this process on the mix's
 * own records ({@link ProofSamples}); how many of each a proposal needs is computed from the mix's
 * recipe; their product is the CPU a proposal spends on proofs on each side.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import {
  createObservationSigner,
  createObservationVerifier,
  deriveToolKey,
  toolProof,
  verifyToolProof,
} from '@toolgate/shared';
import type { MixEntry } from '../core/build-mix.js';
import { median } from '../core/stats.js';

/** One record to prove: its full topic and its value's bytes in the wire format. */
export interface ProofRecord {
  readonly topic: string;
  readonly bytes: Buffer;
}

/** The records of the mix as the gate and its worker write them. */
export interface ProofSamples {
  readonly commands: readonly ProofRecord[];
  readonly results: readonly ProofRecord[];
  readonly observations: readonly ProofRecord[];
}

/** µs of CPU per operation. */
export interface ProofTimings {
  /** Execute proves a command (HMAC). */
  readonly commandProof: number;
  /** The worker checks a command's proof. */
  readonly commandCheck: number;
  /** The worker proves a result. */
  readonly resultProof: number;
  /** Execute checks a result's proof. */
  readonly resultCheck: number;
  /** A stage signs an observation (Ed25519). */
  readonly observationSignature: number;
  /** The agent verifies an observation's signature. */
  readonly observationCheck: number;
}

/** How many of each record one proposal of the mix makes, on average. */
export interface ProofCounts {
  readonly commands: number;
  readonly results: number;
  readonly observations: number;
}

/** What the records timed were: how many, and their mean size in bytes. */
export interface TimedRecords {
  readonly count: number;
  readonly meanBytes: number;
}

/** CPU µs per proposal spent on proofs, by who spends it. */
export interface ProofSides {
  /** Command proof, result check, observation signature. */
  readonly gate: number;
  /** Command check, result proof. */
  readonly worker: number;
  /** Observation verification. */
  readonly agent: number;
}

/** The proof-cost line of the report, as latest.json holds it. */
export interface ProofCost {
  /** Measured: µs of CPU per operation, the median over {@link ProofCost.rounds} rounds. */
  readonly usPerOperation: ProofTimings;
  readonly rounds: number;
  /** Measured on: the mix's commands, results and observations. */
  readonly records: {
    readonly command: TimedRecords;
    readonly result: TimedRecords;
    readonly observation: TimedRecords;
  };
  /** Computed from the mix's recipe (not counted in the run). */
  readonly perProposal: ProofCounts;
  /** Computed: operations per proposal × µs per operation. */
  readonly cpuUsPerProposal: ProofSides;
}

/**
 * Per proposal of `mix`: one command and one result for every call that runs (a first call or an
 * approved one; a client's retry is answered from the idempotency record), one observation for
 * every proposal and one more (pending) for a call that waits for a person. Pure.
 */
export function proofCountsOf(mix: readonly MixEntry[]): ProofCounts {
  const n = mix.length;
  if (n === 0) throw new RangeError('the mix is empty');
  const runs = mix.filter(
    (e) => (e.expected.kind === 'execute' && !e.expected.replay) || e.expected.kind === 'confirm',
  ).length;
  const waits = mix.filter((e) => e.expected.kind === 'confirm').length;
  return { commands: runs / n, results: runs / n, observations: (n + waits) / n };
}

/** µs of CPU per proposal on each side: counts × µs per operation. Pure. */
export function proofSidesOf(us: ProofTimings, per: ProofCounts): ProofSides {
  return {
    gate:
      per.commands * us.commandProof +
      per.results * us.resultCheck +
      per.observations * us.observationSignature,
    worker: per.commands * us.commandCheck + per.results * us.resultProof,
    agent: per.observations * us.observationCheck,
  };
}

/** How long each round of one operation runs, in ms, and how many rounds. */
export interface ProofTiming {
  readonly roundMs: number;
  readonly rounds: number;
}

const DEFAULT_TIMING: ProofTiming = { roundMs: 150, rounds: 3 };

/**
 * µs of CPU (user + system) per call of `op`, cycling over `records`: a first pass that must
 * answer true for each (a check that fails would time the wrong path), then `rounds` rounds of
 * whole passes lasting at least `roundMs` each; the median of the rounds.
 */
function usPerCall<T>(records: readonly T[], op: (r: T) => boolean, timing: ProofTiming): number {
  if (records.length === 0) return Number.NaN;
  if (!records.every(op)) throw new Error('a proof did not verify: the timing would be wrong');
  const rounds: number[] = [];
  for (let round = 0; round < timing.rounds; round += 1) {
    const start = process.cpuUsage();
    const until = performance.now() + timing.roundMs;
    let calls = 0;
    while (performance.now() < until) {
      for (const r of records) op(r);
      calls += records.length;
    }
    const used = process.cpuUsage(start);
    rounds.push((used.user + used.system) / calls);
  }
  return median(rounds);
}

interface Proved extends ProofRecord {
  readonly proof: string;
}

/** Times the HMAC proof and check of `records` under one tool key. */
function hmacTimings(records: readonly ProofRecord[], key: string, timing: ProofTiming) {
  const proved: Proved[] = records.map((r) => ({ ...r, proof: toolProof(key, r.topic, r.bytes) }));
  return {
    prove: usPerCall(records, (r) => toolProof(key, r.topic, r.bytes).length === 64, timing),
    check: usPerCall(
      proved,
      (r) => verifyToolProof([key], r.topic, r.bytes, r.proof) !== undefined,
      timing,
    ),
  };
}

/** Times the Ed25519 signature and verification of `records` under a fresh key pair. */
function signatureTimings(records: readonly ProofRecord[], timing: ProofTiming) {
  const pair = generateKeyPairSync('ed25519');
  const der = (k: typeof pair.privateKey, type: 'pkcs8' | 'spki') =>
    k.export({ type, format: 'der' }).toString('base64');
  const signer = createObservationSigner(der(pair.privateKey, 'pkcs8'));
  const verify = createObservationVerifier([der(pair.publicKey, 'spki')]);
  const signed = records.map((r) => ({ ...r, proof: signer.sign(r.topic, r.bytes) }));
  return {
    sign: usPerCall(records, (r) => signer.sign(r.topic, r.bytes).length > 0, timing),
    check: usPerCall(signed, (r) => verify(r.topic, r.bytes, r.proof), timing),
  };
}

function timed(records: readonly ProofRecord[]): TimedRecords {
  const bytes = records.reduce((sum, r) => sum + r.bytes.length, 0);
  return { count: records.length, meanBytes: records.length > 0 ? bytes / records.length : 0 };
}

/**
 * Times every proof operation on `samples` in this process (keys made for the purpose: the cost
 * does not depend on which key) and computes the cost per proposal with `perProposal`. Takes
 * about 6 × rounds × roundMs.
 */
export function measureProofCost(
  samples: ProofSamples,
  perProposal: ProofCounts,
  timing: ProofTiming = DEFAULT_TIMING,
): ProofCost {
  const toolKey = deriveToolKey(randomBytes(32).toString('hex'), 'search');
  const commands = hmacTimings(samples.commands, toolKey, timing);
  const results = hmacTimings(samples.results, toolKey, timing);
  const observations = signatureTimings(samples.observations, timing);
  const usPerOperation: ProofTimings = {
    commandProof: commands.prove,
    commandCheck: commands.check,
    resultProof: results.prove,
    resultCheck: results.check,
    observationSignature: observations.sign,
    observationCheck: observations.check,
  };
  return {
    usPerOperation,
    rounds: timing.rounds,
    records: {
      command: timed(samples.commands),
      result: timed(samples.results),
      observation: timed(samples.observations),
    },
    perProposal,
    cpuUsPerProposal: proofSidesOf(usPerOperation, perProposal),
  };
}

/**
 * The report's lines: what was measured (µs per operation, on which records), then what is
 * computed from it; with the gate's processes' CPU per proposal at saturation (ms, the sum of
 * their medians), the share of it the gate's and its worker's proofs are. Pure.
 */
export function formatProofCost(cost: ProofCost, gateCpuMsPerProposal?: number): string[] {
  const us = cost.usPerOperation;
  const f = (n: number) => n.toFixed(1);
  const bytes = (r: TimedRecords) => `${r.count} of ${r.meanBytes.toFixed(0)} B on average`;
  const { command, result, observation } = cost.records;
  const per = cost.perProposal;
  const sides = cost.cpuUsPerProposal;
  const share =
    gateCpuMsPerProposal === undefined || !(gateCpuMsPerProposal > 0)
      ? ''
      : `; gate and worker together ${(((sides.gate + sides.worker) / 1000 / gateCpuMsPerProposal) * 100).toFixed(1)} % of the gate's processes' CPU per proposal at saturation`;
  return [
    `Proofs of origin, measured in this process before the systems started: µs of CPU per operation, median of ${cost.rounds} rounds over the mix's own records`,
    `  tool proof (HMAC-SHA256): command ${f(us.commandProof)} to prove, ${f(us.commandCheck)} to check (${bytes(command)}); result ${f(us.resultProof)} to prove, ${f(us.resultCheck)} to check (${bytes(result)})`,
    `  observation signature (Ed25519): ${f(us.observationSignature)} to sign, ${f(us.observationCheck)} to verify (${bytes(observation)})`,
    `  computed from the mix's recipe, per proposal ${per.commands.toFixed(2)} commands and results and ${per.observations.toFixed(2)} observations: gate ${f(sides.gate)} µs, worker ${f(sides.worker)} µs, agent ${f(sides.agent)} µs of CPU${share}`,
  ];
}
