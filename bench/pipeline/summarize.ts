/**
 * From the repetitions of a run to what the report says: medians with their spread per system and
 * load, and the gate/relay ratios of the closing line. Pure.
 */
import { spreadOf, type Spread } from '../core/stats.js';
import type { LatencySummary } from './histogram.js';

/** The systems measured side by side. */
export const SYSTEMS = ['onehop', 'relay', 'gate'] as const;

/** One system. */
export type SystemName = (typeof SYSTEMS)[number];

/** What one process (or the broker) cost during a saturation repetition. */
export interface ProcessCost {
  readonly name: string;
  /** CPU seconds (user + system) spent in the measured window. */
  readonly cpuSeconds: number;
  /** CPU milliseconds per proposal completed in the window. */
  readonly cpuMsPerProposal: number;
  /**
   * Write system calls (to sockets and files: Kafka requests, Redis commands, logs) per proposal
   * completed in the window; NaN when the OS would not say.
   */
  readonly writeCallsPerProposal: number;
  /** Resident memory at the end of the window, MiB. */
  readonly rssMiB: number;
}

/** One repetition of one phase for one system. */
export interface RunRecord {
  readonly system: SystemName;
  readonly phase: 'saturation' | 'open';
  /** Offered rate as a fraction of the relay's saturation (open-loop runs only). */
  readonly fraction: number | null;
  /** Offered proposals per second (open-loop runs only). */
  readonly offeredPerSec: number | null;
  readonly rep: number;
  readonly sent: number;
  readonly completed: number;
  /** Sent but not answered before the drain deadline. */
  readonly lost: number;
  /** Proposals completed end to end per second, in the measured window. */
  readonly throughput: number;
  /** Proposal produced (open loop: when it was due) → terminal observation consumed, ms. */
  readonly latency: LatencySummary;
  /** The same, of the calls no person has to approve (the gate's confirmations left out). */
  readonly latencyUnattended: LatencySummary;
  /** Per process and the broker (saturation runs only). */
  readonly costs: readonly ProcessCost[];
}

/** One open-loop load level of one system. */
export interface LoadSummary {
  readonly fraction: number;
  readonly offeredPerSec: number;
  readonly throughput: Spread;
  readonly p50: Spread;
  readonly p99: Spread;
  readonly p999: Spread;
  readonly max: Spread;
  /** p50 and p99 of the calls no person has to approve. */
  readonly unattendedP50: Spread;
  readonly unattendedP99: Spread;
  readonly lost: number;
}

/** The medians of one system's repetitions. */
export interface SystemSummary {
  readonly saturation: Spread;
  readonly costs: readonly {
    readonly name: string;
    readonly cpuMsPerProposal: Spread;
    /** Over the repetitions that could read it; NaN throughout when none could. */
    readonly writeCallsPerProposal: Spread;
    readonly rssMiB: Spread;
  }[];
  readonly loads: readonly LoadSummary[];
  readonly runs: readonly RunRecord[];
}

/** The gate against the relay: the figures of the closing line. */
export interface HeadlineRatios {
  /** Gate saturation throughput / relay's (median over repetitions). */
  readonly throughput: number;
  /** Gate p99 / relay p99 at half of the relay's saturation (medians). */
  readonly p99AtHalfLoad: number;
  /** Gate p50 − relay p50 at half load, ms (medians). */
  readonly p50DeltaMs: number;
}

/**
 * The headline ratios repetition by repetition: each repetition's gate against the relay run next
 * to it (they are interleaved), so the spread says how far one run's ratio moves with the machine.
 * Each figure is the median, least and greatest over the repetitions both systems ran.
 */
export interface RatiosByRepetition {
  readonly repetitions: number;
  readonly throughput: Spread;
  readonly p99AtHalfLoad: Spread;
  readonly p50DeltaMs: Spread;
}

/** The gate against the relay. */
export interface Ratios extends HeadlineRatios {
  /**
   * The two latency figures again, of the calls no person has to approve: what a call that goes
   * straight through costs. Not a target; the targets take every call.
   */
  readonly unattended: Omit<HeadlineRatios, 'throughput'>;
  readonly byRepetition: RatiosByRepetition;
}

/** The latency figures of a load level that the ratios compare. */
type LatencyKey = 'p50' | 'p99' | 'unattendedP50' | 'unattendedP99';

/** The load level the ratios compare latency at. */
export const HALF_LOAD = 0.5;

/** A load level as the percentage that names it in run ids, reports and JSON (`0.05` → `5`). */
export function percentOf(fraction: number): number {
  return Math.round(fraction * 10_000) / 100;
}

/** Medians and spreads of `runs` (all of one system). */
export function summarizeSystem(runs: readonly RunRecord[]): SystemSummary {
  const saturation = runs.filter((r) => r.phase === 'saturation');
  const names = [...new Set(saturation.flatMap((r) => r.costs.map((c) => c.name)))];
  const costs = names.map((name) => {
    const of = saturation.flatMap((r) => r.costs.filter((c) => c.name === name));
    return {
      name,
      cpuMsPerProposal: spreadOf(of.map((c) => c.cpuMsPerProposal)),
      writeCallsPerProposal: spreadOf(
        of.map((c) => c.writeCallsPerProposal).filter((n) => Number.isFinite(n)),
      ),
      rssMiB: spreadOf(of.map((c) => c.rssMiB)),
    };
  });
  const fractions = [...new Set(runs.flatMap((r) => (r.fraction === null ? [] : [r.fraction])))];
  const loads = fractions
    .sort((a, b) => a - b)
    .map((fraction) =>
      loadSummary(
        fraction,
        runs.filter((r) => r.fraction === fraction),
      ),
    );
  return { saturation: spreadOf(saturation.map((r) => r.throughput)), costs, loads, runs };
}

function loadSummary(fraction: number, runs: readonly RunRecord[]): LoadSummary {
  const of = (pick: (r: RunRecord) => number) => spreadOf(runs.map(pick));
  return {
    fraction,
    offeredPerSec: runs[0]?.offeredPerSec ?? Number.NaN,
    throughput: of((r) => r.throughput),
    p50: of((r) => r.latency.p50),
    p99: of((r) => r.latency.p99),
    p999: of((r) => r.latency.p999),
    max: of((r) => r.latency.max),
    unattendedP50: of((r) => r.latencyUnattended.p50),
    unattendedP99: of((r) => r.latencyUnattended.p99),
    lost: runs.reduce((n, r) => n + r.lost, 0),
  };
}

/** The load summary at `fraction`, if that level was run. */
export function loadAt(s: SystemSummary, fraction: number): LoadSummary | undefined {
  return s.loads.find((l) => l.fraction === fraction);
}

/** The ratios of the closing line; NaN where a figure is missing. */
export function ratiosOf(relay: SystemSummary, gate: SystemSummary): Ratios {
  const r = loadAt(relay, HALF_LOAD);
  const g = loadAt(gate, HALF_LOAD);
  const median = (l: LoadSummary | undefined, key: LatencyKey) => l?.[key].median ?? Number.NaN;
  const compared = (p50: LatencyKey, p99: LatencyKey) => ({
    p99AtHalfLoad: median(g, p99) / median(r, p99),
    p50DeltaMs: median(g, p50) - median(r, p50),
  });
  return {
    throughput: gate.saturation.median / relay.saturation.median,
    ...compared('p50', 'p99'),
    unattended: compared('unattendedP50', 'unattendedP99'),
    byRepetition: ratiosByRepetition(relay.runs, gate.runs),
  };
}

/** {@link RatiosByRepetition} of two systems' runs, pairing runs of the same phase, level and rep. */
export function ratiosByRepetition(
  relay: readonly RunRecord[],
  gate: readonly RunRecord[],
): RatiosByRepetition {
  const pairs = (take: (r: RunRecord) => boolean) =>
    gate.filter(take).flatMap((g) => {
      const r = relay.find((x) => take(x) && x.rep === g.rep);
      return r === undefined ? [] : [[r, g] as const];
    });
  const saturation = pairs((r) => r.phase === 'saturation');
  const half = pairs((r) => r.phase === 'open' && r.fraction === HALF_LOAD);
  return {
    repetitions: Math.max(saturation.length, half.length),
    throughput: spreadOf(saturation.map(([r, g]) => g.throughput / r.throughput)),
    p99AtHalfLoad: spreadOf(half.map(([r, g]) => g.latency.p99 / r.latency.p99)),
    p50DeltaMs: spreadOf(half.map(([r, g]) => g.latency.p50 - r.latency.p50)),
  };
}

/** `gate/relay: throughput X.XX, p50 +N ms, p99 at half load Y.YY×`. */
export function finalLine(ratios: HeadlineRatios): string {
  return `gate/relay: throughput ${ratios.throughput.toFixed(2)}, ${latencyRatios(ratios)}`;
}

/** `p50 +N ms, p99 at half load Y.YY×`, with a signed whole-ms p50 delta. */
export function latencyRatios(ratios: Omit<HeadlineRatios, 'throughput'>): string {
  return `p50 ${signedMs(ratios.p50DeltaMs)} ms, p99 at half load ${ratios.p99AtHalfLoad.toFixed(2)}×`;
}

/** A delta in whole ms with its sign: `+4`, `-1`, `+0`; `NaN` when missing. */
export function signedMs(ms: number): string {
  const whole = Math.round(ms);
  return Number.isNaN(whole) ? 'NaN' : `${whole < 0 ? '-' : '+'}${Math.abs(whole)}`;
}

/** The benchmark's targets, checked against `ratios`. */
export function targetsMet(ratios: HeadlineRatios): {
  readonly throughput: boolean;
  readonly p50: boolean;
  readonly p99: boolean;
} {
  return {
    throughput: ratios.throughput >= 0.5,
    p50: ratios.p50DeltaMs <= 2,
    p99: ratios.p99AtHalfLoad <= 1.5,
  };
}
