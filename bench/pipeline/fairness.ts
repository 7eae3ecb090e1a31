/**
 * The fairness scenario of `npm run bench -- --fairness`, its pure part: the parameters, the
 * traffic of each tenant, the verdict and the lines it prints. One tenant (the victim) sends an
 * honest steady rate, first alone, then beside another tenant (the flood) sending ten times its
 * own rate ceiling; the victim's p99 beside the flood must stay within twice its p99 alone.
 */
import type { MixEntry } from '../core/build-mix.js';
import { spreadOf, type Spread } from '../core/stats.js';
import type { LatencySummary } from './histogram.js';
import { tenantOf } from './traffic.js';

/** What the scenario sends, and what it checks. */
export interface FairnessParams {
  /** The tenant whose latency is measured (the example's globex: carol). */
  readonly victimTenant: string;
  /** The tenant that floods (the example's acme: alice and bob). */
  readonly floodTenant: string;
  /** The victim's honest rate, proposals/s, well under its ceiling. */
  readonly victimPerSecond: number;
  /** `callsPerTenantPerSecond` of the scenario's deployment, every tenant's. */
  readonly tenantCeilingPerSecond: number;
  /** The flood sends this many times the ceiling. */
  readonly floodFactor: number;
  /** The victim's p99 beside the flood over its p99 alone may be at most this. */
  readonly maxP99Ratio: number;
}

/**
 * The scenario's parameters, sized for a 2-core machine whose gate saturates at a few hundred
 * proposals/s: a flood of 200/s is within what the gate can take, so the scenario measures how the
 * flood's share of the gate shows in the victim's tail, not a gate past saturation.
 */
export const FAIRNESS: FairnessParams = Object.freeze({
  victimTenant: 'globex',
  floodTenant: 'acme',
  victimPerSecond: 10,
  tenantCeilingPerSecond: 20,
  floodFactor: 10,
  maxP99Ratio: 2,
});

/** The flood's rate, proposals/s. */
export function floodPerSecond(p: FairnessParams): number {
  return p.tenantCeilingPerSecond * p.floodFactor;
}

/**
 * A tenant's traffic: the mix's valid reads by its users, which go the whole way through the gate
 * (no person to wait for, no refusal on the way), so every latency is of the same path and any
 * refusal is the limits rung's.
 */
export function tenantReads(mix: readonly MixEntry[], tenant: string): MixEntry[] {
  const reads = mix.filter(
    (e) => e.group === 'read' && e.expected.kind === 'execute' && tenantOf(e.user) === tenant,
  );
  if (reads.length === 0) throw new RangeError(`the mix has no reads of tenant ${tenant}`);
  return reads;
}

/** How long each phase of one repetition sends: long enough for a p99 of the victim's rate. */
export function fairnessPhaseMs(mode: 'quick' | 'full'): number {
  return mode === 'quick' ? 20_000 : 40_000;
}

/** What one tenant's run of one repetition came to. */
export interface TenantRun {
  readonly sent: number;
  readonly lost: number;
  readonly latency: LatencySummary;
  /** Terminal observations by outcome (`result`, `rejected limits/rate_limited`, …). */
  readonly outcomes: Readonly<Record<string, number>>;
}

/** One repetition: the victim alone, or the victim and the flood at once. */
export interface FairnessRun {
  readonly phase: 'alone' | 'flooded';
  readonly rep: number;
  readonly victim: TenantRun;
  /** The flooding tenant's run (flooded phase only). */
  readonly flood?: TenantRun;
  /** CPU seconds of each gate process and stack service over the phase, drain included. */
  readonly cpuSeconds?: Readonly<Record<string, number>>;
  /** Wall time of the phase, drain included, ms. */
  readonly wallMs?: number;
}

/** The scenario's figures and its verdict. */
export interface FairnessVerdict {
  /** The victim's latency over every repetition of each phase (samples pooled). */
  readonly alone: LatencySummary;
  readonly flooded: LatencySummary;
  /** `flooded.p99 / alone.p99`: the figure checked. */
  readonly p99Ratio: number;
  readonly p50Ratio: number;
  /** The same p99 ratio repetition by repetition (each flooded run against the alone run of its rep). */
  readonly p99RatioByRepetition: Spread;
  /** Within `maxP99Ratio`, and no victim proposal refused or lost. */
  readonly pass: boolean;
  /** Why it failed, when it did. */
  readonly reasons: readonly string[];
}

/** Sums counts by name. */
export function sumCounts(
  counts: readonly (Readonly<Record<string, number>> | undefined)[],
): Readonly<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const c of counts) for (const [k, n] of Object.entries(c ?? {})) out[k] = (out[k] ?? 0) + n;
  return out;
}

/** Sums the outcome counts of tenant runs. */
export function sumOutcomes(
  runs: readonly (TenantRun | undefined)[],
): Readonly<Record<string, number>> {
  return sumCounts(runs.map((r) => r?.outcomes));
}

/** Proposals of `runs` answered with anything but a result, and those never answered. */
function unserved(runs: readonly TenantRun[]): { refused: number; lost: number } {
  const outcomes = sumOutcomes(runs);
  const refused = Object.entries(outcomes)
    .filter(([k]) => k !== 'result')
    .reduce((n, [, c]) => n + c, 0);
  return { refused, lost: runs.reduce((n, r) => n + r.lost, 0) };
}

/**
 * The verdict, from the victim's pooled latency of each phase and the runs (for the ratios by
 * repetition and the victim's refusals). A victim proposal refused (rate-limited because the flood
 * was counted against it) or lost fails the scenario whatever the latencies say.
 */
export function fairnessVerdict(
  alone: LatencySummary,
  flooded: LatencySummary,
  runs: readonly FairnessRun[],
  params: Pick<FairnessParams, 'maxP99Ratio'>,
): FairnessVerdict {
  const p99Ratio = flooded.p99 / alone.p99;
  const byRep = runs
    .filter((r) => r.phase === 'flooded')
    .flatMap((f) => {
      const a = runs.find((r) => r.phase === 'alone' && r.rep === f.rep);
      return a === undefined ? [] : [f.victim.latency.p99 / a.victim.latency.p99];
    });
  const victim = unserved(runs.map((r) => r.victim));
  const reasons = [
    ...(Number.isFinite(p99Ratio) ? [] : ['no p99 to compare']),
    ...(p99Ratio > params.maxP99Ratio
      ? [`p99 ratio ${p99Ratio.toFixed(2)} > ${params.maxP99Ratio}`]
      : []),
    ...(victim.refused > 0 ? [`${victim.refused} victim proposals refused`] : []),
    ...(victim.lost > 0 ? [`${victim.lost} victim proposals lost`] : []),
  ];
  return {
    alone,
    flooded,
    p99Ratio,
    p50Ratio: flooded.p50 / alone.p50,
    p99RatioByRepetition: spreadOf(byRep),
    pass: reasons.length === 0,
    reasons,
  };
}

/**
 * Cores each process kept busy in each phase (CPU seconds over wall seconds, summed over the
 * phase's repetitions), alone → beside the flood: where the flood's cost lands.
 */
export function cpuLine(runs: readonly FairnessRun[]): string {
  const cores = (phase: FairnessRun['phase']) => {
    const of = runs.filter((r) => r.phase === phase);
    const wall = of.reduce((n, r) => n + (r.wallMs ?? 0), 0) / 1000;
    const cpu = sumCounts(of.map((r) => r.cpuSeconds));
    return { wall, cpu };
  };
  const alone = cores('alone');
  const flooded = cores('flooded');
  const names = [...new Set([...Object.keys(alone.cpu), ...Object.keys(flooded.cpu)])];
  if (names.length === 0 || alone.wall === 0 || flooded.wall === 0) return 'cores busy: n/a';
  const share = (c: { wall: number; cpu: Readonly<Record<string, number>> }, name: string) =>
    ((c.cpu[name] ?? 0) / c.wall).toFixed(2);
  return `cores busy, alone → beside the flood: ${names
    .map((n) => `${n} ${share(alone, n)} → ${share(flooded, n)}`)
    .join(', ')}`;
}

/**
 * Refusals for a rate (`…/rate_limited`, or a code ending so), at whichever rung refused them: the
 * rung that counts calls may move, and a deployment may rate each user as well as each tenant.
 */
export function rateLimited(outcomes: Readonly<Record<string, number>>): number {
  return Object.entries(outcomes)
    .filter(([k]) => k.startsWith('rejected ') && k.endsWith('rate_limited'))
    .reduce((n, [, c]) => n + c, 0);
}

/** `a: 3, b: 1`, largest first; `none` when empty. */
export function formatOutcomes(outcomes: Readonly<Record<string, number>>): string {
  const entries = Object.entries(outcomes).sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : 1));
  return entries.length === 0 ? 'none' : entries.map(([k, n]) => `${k}: ${n}`).join(', ');
}

/** The line saying what the scenario sends. */
export function paramsLine(p: FairnessParams): string {
  return `fairness: victim ${p.victimTenant} at ${p.victimPerSecond}/s; flood ${p.floodTenant} at ${floodPerSecond(p)}/s (${p.floodFactor}× its ceiling of ${p.tenantCeilingPerSecond} calls/s, every tenant's); pass if the victim's p99 beside the flood ≤ ${p.maxP99Ratio}× its p99 alone`;
}

const ms = (n: number) => `${n.toFixed(0)} ms`;

/** The report's lines; the last is the one to quote. */
export function formatFairness(
  p: FairnessParams,
  runs: readonly FairnessRun[],
  v: FairnessVerdict,
): string[] {
  const floods = runs.flatMap((r) => (r.flood === undefined ? [] : [r.flood]));
  const floodSent = floods.reduce((n, f) => n + f.sent, 0);
  const limited = rateLimited(sumOutcomes(floods));
  const spread = v.p99RatioByRepetition;
  const byRep = Number.isNaN(spread.median)
    ? 'n/a'
    : `${spread.median.toFixed(2)}× [${spread.min.toFixed(2)}–${spread.max.toFixed(2)}]`;
  const victimOf = (phase: FairnessRun['phase']) =>
    sumOutcomes(runs.filter((r) => r.phase === phase).map((r) => r.victim));
  return [
    paramsLine(p),
    `victim alone:       p50 ${ms(v.alone.p50)}, p99 ${ms(v.alone.p99)}, max ${ms(v.alone.max)} (${v.alone.count} proposals; ${formatOutcomes(victimOf('alone'))})`,
    `victim beside flood: p50 ${ms(v.flooded.p50)}, p99 ${ms(v.flooded.p99)}, max ${ms(v.flooded.max)} (${v.flooded.count} proposals; ${formatOutcomes(victimOf('flooded'))})`,
    `flood: ${floodSent} sent; ${formatOutcomes(sumOutcomes(floods))}`,
    `p99 ratio by repetition: ${byRep}; p50 ratio ${v.p50Ratio.toFixed(2)}×`,
    cpuLine(runs),
    `fairness: victim p99 ${v.p99Ratio.toFixed(2)}× its unloaded value beside a ${p.floodFactor}× flood (≤ ${p.maxP99Ratio}×: ${v.pass ? 'pass' : `FAIL, ${v.reasons.join('; ')}`}); flood rate_limited ${limited} of ${floodSent}`,
  ];
}
