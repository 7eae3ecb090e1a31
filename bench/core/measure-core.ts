/**
 * The measurement: the baseline, the ladder end to end, each rung alone and the uncached session
 * check, run in interleaved rounds (each round visits every slice once, starting one slice later
 * than the round before), so that a burst of load from elsewhere falls on all of them alike.
 */
import { cpus, loadavg } from 'node:os';
import { TOOLS } from '../../examples/billing/tools.js';
import { buildMix, type MixEntry } from './build-mix.js';
import { checkMix } from './check-mix.js';
import { createBaseline } from './create-baseline.js';
import { createBillingBench, type BillingBench } from './create-billing-bench.js';
import { createLatencyRecorder, ladderPass, type LatencyRecorder } from './ladder-pass.js';
import { rungsOf, stageRungs, uncachedVerifyRung, type Rung } from './stage-rungs.js';
import { percentilesOf, spreadOf, type Percentiles, type Spread } from './stats.js';
import { timeSlice, timerCostNs, type Pass } from './time-slice.js';

/** How long and on what the benchmark runs. */
export interface CoreOptions {
  readonly mode: string;
  readonly rounds: number;
  /** Budget of the baseline and ladder slices per round, in milliseconds. */
  readonly mainSliceMs: number;
  /** Budget of each rung's slice per round, in milliseconds. */
  readonly rungSliceMs: number;
  /** Warm-up per slice before the first round, in milliseconds. */
  readonly warmupMs: number;
  readonly mixSize: number;
  readonly seed: number;
  /** Only the ladder (for a CPU profile that shows nothing else). */
  readonly ladderOnly: boolean;
}

/** One slice's cost per proposal of the mix, on both clocks, in microseconds. */
export interface Cost {
  readonly cpuUs: Spread;
  readonly wallUs: Spread;
}

/** One rung's cost. `share` is of the ladder's CPU cost per proposal. */
export interface RungResult {
  readonly name: string;
  readonly callsPerPass: number;
  readonly perProposal: Cost;
  /** CPU microseconds per call of the rung (only the proposals that reach it call it). */
  readonly cpuUsPerCall: number;
  readonly share: number;
}

/** Everything one run measured (written as `bench/results/core-latest.json`). */
export interface CoreResult {
  readonly environment: Readonly<Record<string, string | number>>;
  readonly options: CoreOptions;
  readonly mix: Readonly<Record<string, Readonly<Record<string, number>>>>;
  readonly timerCostNs: number;
  readonly baseline: Cost | undefined;
  readonly ladder: Cost & {
    /** 1 / CPU cost: what one core sustains, single-threaded. */
    readonly proposalsPerSecondPerCore: Spread;
    /** Wall-clock duration of one evaluate(), µs, over every timed call of every round. */
    readonly latencyUs: Percentiles;
    readonly latencyByGroupUs: Readonly<Record<string, Percentiles>>;
  };
  /** ladder ÷ baseline per round, on each clock. */
  readonly ratio: { readonly cpu: Spread; readonly wall: Spread } | undefined;
  readonly rungs: readonly RungResult[];
  /** CPU µs per proposal the ladder spends outside every rung timed alone (glue, repair, limits…). */
  readonly unattributedCpuUs: number | undefined;
  readonly verifyUncached:
    { readonly cpuUsPerCall: number; readonly extraCpuUsPerProposal: number } | undefined;
}

interface Slice {
  readonly name: string;
  readonly budgetMs: number;
  readonly calls: number;
  readonly pass: Pass;
}

/** Per pass of one slice in one round. */
interface PassCost {
  readonly wallNs: number;
  readonly cpuUs: number;
}

type Rounds = Map<string, PassCost>[];

const LADDER = 'ladder';
const BASELINE = 'baseline';
const UNCACHED = 'verify (uncached HS256)';

/** Builds the mix and the gate, checks the mix, then measures. */
export async function measureCore(
  options: CoreOptions,
  log: (line: string) => void,
): Promise<CoreResult> {
  const mix = buildMix({ size: options.mixSize, seed: options.seed });
  const bench = await createBillingBench();
  const mismatches = await checkMix(mix, bench);
  if (mismatches.length > 0) {
    const shown = JSON.stringify(mismatches.slice(0, 10), null, 2);
    throw new Error(`the mix does not take the paths it claims:\n${shown}`);
  }
  const recorder = createLatencyRecorder();
  const slices = await slicesOf(mix, bench, recorder, options);
  const loadBefore = loadavg();
  log(`warming up ${slices.length} slices, ${options.warmupMs} ms each`);
  for (const slice of slices) await timeSlice(slice.pass, options.warmupMs);
  recorder.recording = true;
  const rounds = await runRounds(slices, options, log);
  return summarize({ mix, options, rounds, recorder, slices, loadBefore });
}

async function slicesOf(
  mix: readonly MixEntry[],
  bench: BillingBench,
  recorder: LatencyRecorder,
  options: CoreOptions,
): Promise<Slice[]> {
  const main = (name: string, pass: Pass): Slice => ({
    name,
    budgetMs: options.mainSliceMs,
    calls: mix.length,
    pass,
  });
  const ladder = main(LADDER, ladderPass(mix, bench, recorder));
  if (options.ladderOnly) return [ladder];
  const check = createBaseline(TOOLS);
  const baseline = main(BASELINE, () => {
    let valid = 0;
    for (const entry of mix) valid += check(entry.baseline) ? 1 : 0;
    return valid;
  });
  const inputs = await stageRungs(mix, bench);
  const rung = (r: Rung): Slice => ({ ...r, budgetMs: options.rungSliceMs });
  const rungs = [...rungsOf(inputs, bench.gate), uncachedVerifyRung(inputs, bench)];
  return [baseline, ladder, ...rungs.map(rung)];
}

async function runRounds(
  slices: readonly Slice[],
  options: CoreOptions,
  log: (line: string) => void,
): Promise<Rounds> {
  const rounds: Rounds = [];
  for (let r = 0; r < options.rounds; r += 1) {
    const round = new Map<string, PassCost>();
    for (let k = 0; k < slices.length; k += 1) {
      const slice = slices[(r + k) % slices.length];
      if (slice === undefined) continue;
      const t = await timeSlice(slice.pass, slice.budgetMs);
      round.set(slice.name, { wallNs: t.ns / t.passes, cpuUs: t.cpuUs / t.passes });
    }
    rounds.push(round);
    const ladder = round.get(LADDER);
    const perProposal = (x: number) => (x / options.mixSize).toFixed(1);
    log(
      `round ${r + 1}/${options.rounds}: ladder ${perProposal(ladder?.cpuUs ?? NaN)} µs CPU, ` +
        `${perProposal((ladder?.wallNs ?? NaN) / 1000)} µs wall per proposal`,
    );
  }
  return rounds;
}

interface Measured {
  readonly mix: readonly MixEntry[];
  readonly options: CoreOptions;
  readonly rounds: Rounds;
  readonly recorder: LatencyRecorder;
  readonly slices: readonly Slice[];
  readonly loadBefore: readonly number[];
}

/** Per-round CPU and wall microseconds per proposal of the mix, for one slice. */
function perRound(m: Measured, name: string): { cpu: number[]; wall: number[] } {
  const size = m.mix.length;
  const costs = m.rounds.map((r) => r.get(name) ?? { wallNs: NaN, cpuUs: NaN });
  return { cpu: costs.map((c) => c.cpuUs / size), wall: costs.map((c) => c.wallNs / 1000 / size) };
}

function costOf(m: Measured, name: string): Cost {
  const { cpu, wall } = perRound(m, name);
  return { cpuUs: spreadOf(cpu), wallUs: spreadOf(wall) };
}

function summarize(m: Measured): CoreResult {
  const has = (name: string) => m.slices.some((s) => s.name === name);
  const ladder = costOf(m, LADDER);
  const rungs = m.slices
    .filter((s) => ![LADDER, BASELINE, UNCACHED].includes(s.name))
    .map((s) => rungResult(m, s, ladder.cpuUs.median));
  const attributed = rungs.reduce((sum, r) => sum + r.perProposal.cpuUs.median, 0);
  return {
    environment: environment(m.loadBefore),
    options: m.options,
    mix: composition(m.mix),
    timerCostNs: timerCostNs(),
    baseline: has(BASELINE) ? costOf(m, BASELINE) : undefined,
    ladder: { ...ladder, ...ladderExtras(m) },
    ratio: has(BASELINE) ? ratios(m) : undefined,
    rungs,
    unattributedCpuUs: rungs.length > 0 ? ladder.cpuUs.median - attributed : undefined,
    verifyUncached: has(UNCACHED) ? uncached(m, rungs[0]) : undefined,
  };
}

function ratios(m: Measured): { cpu: Spread; wall: Spread } {
  const ladder = perRound(m, LADDER);
  const baseline = perRound(m, BASELINE);
  const divide = (a: number[], b: number[]) => spreadOf(a.map((x, i) => x / (b[i] ?? NaN)));
  return { cpu: divide(ladder.cpu, baseline.cpu), wall: divide(ladder.wall, baseline.wall) };
}

function rungResult(m: Measured, slice: Slice, ladderCpuUs: number): RungResult {
  const perProposal = costOf(m, slice.name);
  const perCall = (perProposal.cpuUs.median * m.mix.length) / Math.max(1, slice.calls);
  return {
    name: slice.name,
    callsPerPass: slice.calls,
    perProposal,
    cpuUsPerCall: perCall,
    share: perProposal.cpuUs.median / ladderCpuUs,
  };
}

function uncached(m: Measured, cached: RungResult | undefined): CoreResult['verifyUncached'] {
  const cost = costOf(m, UNCACHED).cpuUs.median;
  const calls = m.slices.find((s) => s.name === UNCACHED)?.calls ?? 1;
  return {
    cpuUsPerCall: (cost * m.mix.length) / Math.max(1, calls),
    extraCpuUsPerProposal: cost - (cached?.perProposal.cpuUs.median ?? 0),
  };
}

function ladderExtras(m: Measured) {
  const toUs = (ns: readonly number[]) => ns.map((n) => n / 1000);
  const groups = Object.entries(m.recorder.samples);
  return {
    proposalsPerSecondPerCore: spreadOf(perRound(m, LADDER).cpu.map((us) => 1e6 / us)),
    latencyUs: percentilesOf(groups.flatMap(([, ns]) => toUs(ns))),
    latencyByGroupUs: Object.fromEntries(groups.map(([g, ns]) => [g, percentilesOf(toUs(ns))])),
  };
}

function composition(mix: readonly MixEntry[]): CoreResult['mix'] {
  const count = (key: (e: MixEntry) => string) => {
    const counts: Record<string, number> = {};
    for (const e of mix) counts[key(e)] = (counts[key(e)] ?? 0) + 1;
    return counts;
  };
  return {
    byGroup: count((e) => e.group),
    byLabel: count((e) => e.label),
    byFormat: count((e) => e.proposal.format),
    byUser: count((e) => e.user),
  };
}

function environment(loadBefore: readonly number[]): CoreResult['environment'] {
  const cpu = cpus();
  const load = (l: readonly number[]) => l.map((x) => x.toFixed(2)).join(' ');
  return {
    node: process.version,
    v8: process.versions.v8,
    execArgv: process.execArgv
      .filter((a) => a.startsWith('--no-') || a.startsWith('--cpu'))
      .join(' '),
    platform: `${process.platform} ${process.arch}`,
    cpu: cpu[0]?.model ?? 'unknown',
    cores: cpu.length,
    loadBefore: load(loadBefore),
    loadAfter: load(loadavg()),
    at: new Date().toISOString(),
  };
}
