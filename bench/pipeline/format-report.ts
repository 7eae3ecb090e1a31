/** The pipeline benchmark's table, as lines of text. Pure. */
import type { Spread } from '../core/stats.js';
import { formatProofCost, type ProofCost } from './proof-cost.js';
import {
  finalLine,
  latencyRatios,
  percentOf,
  signedMs,
  targetsMet,
  type LoadSummary,
  type Ratios,
  type RatiosByRepetition,
  type SystemName,
  type SystemSummary,
} from './summarize.js';

/** What the report is made of. */
export interface ReportInput {
  /** e.g. `quick, 3 repetitions, seed 20261129`. */
  readonly title: string;
  /** e.g. `2 × AMD EPYC …, node v20.20.2, linux`. */
  readonly machine: string;
  readonly systems: Readonly<Partial<Record<SystemName, SystemSummary>>>;
  readonly ratios: Ratios;
  /** Lines of caveats (mismatched answers, lost proposals); printed before the ratios. */
  readonly notes: readonly string[];
  /** The proofs' CPU cost, measured apart from the pipelines; printed after the costs. */
  readonly proofCost?: ProofCost;
}

/** `12.3 [11.0–14.1]`, with `digits` decimals. */
export function formatSpread(s: Spread, digits = 1): string {
  if (Number.isNaN(s.median)) return 'n/a';
  const f = (n: number) => n.toFixed(digits);
  return s.min === s.max ? f(s.median) : `${f(s.median)} [${f(s.min)}–${f(s.max)}]`;
}

const pad = (text: string, width: number) => text.padEnd(width);

/** The whole report; its last line is {@link finalLine}. */
export function formatReport(input: ReportInput): string[] {
  const systems = Object.entries(input.systems) as [SystemName, SystemSummary][];
  const lines = [
    `Toolgate pipeline benchmark (${input.title})`,
    `machine: ${input.machine}`,
    '',
    'Saturation: proposals/s completed end to end, median [min–max] over repetitions',
    ...systems.map(([name, s]) => `  ${pad(name, 8)} ${formatSpread(s.saturation)}`),
    '',
    'Open-loop latency: proposal produced (when due) → terminal observation consumed, ms',
    `  ${pad('load', 6)}${pad('rate/s', 9)}${pad('system', 8)}${pad('p50', 26)}${pad('p99', 26)}${pad('p99.9', 26)}${pad('max', 26)}lost`,
    ...latencyRows(systems),
    ...unattendedRows(input.systems.gate),
    '',
    'Cost at saturation, per process: CPU ms per proposal, write system calls per proposal, and',
    'resident memory (MiB)',
    ...systems.flatMap(([name, s]) =>
      s.costs.map(
        (c) =>
          `  ${pad(name, 8)}${pad(c.name, 22)}${pad(formatSpread(c.cpuMsPerProposal, 3), 28)}${pad(formatSpread(c.writeCallsPerProposal, 2), 24)}${formatSpread(c.rssMiB, 0)} MiB`,
      ),
    ),
    '',
    ...proofLines(input),
    ...targetLines(input.ratios),
    ...input.notes.map((n) => `note: ${n}`),
    finalLine(input.ratios),
  ];
  return lines;
}

/** The proof-cost lines and a blank one, with the gate's processes' CPU per proposal. */
function proofLines(input: ReportInput): string[] {
  if (input.proofCost === undefined) return [];
  const own = (input.systems.gate?.costs ?? []).filter((c) => c.name.startsWith('gate-'));
  const gateMs = own.reduce((sum, c) => sum + c.cpuMsPerProposal.median, 0);
  return [...formatProofCost(input.proofCost, own.length > 0 ? gateMs : undefined), ''];
}

function latencyRows(systems: readonly [SystemName, SystemSummary][]): string[] {
  const fractions = [...new Set(systems.flatMap(([, s]) => s.loads.map((l) => l.fraction)))].sort(
    (a, b) => a - b,
  );
  return fractions.flatMap((fraction) =>
    systems.flatMap(([name, s]) => {
      const l = s.loads.find((x) => x.fraction === fraction);
      if (l === undefined) return [];
      return [
        `${rowHead(l, name)}${pad(formatSpread(l.p50), 26)}${pad(formatSpread(l.p99), 26)}` +
          `${pad(formatSpread(l.p999), 26)}${pad(formatSpread(l.max), 26)}${l.lost}`,
      ];
    }),
  );
}

/** The gate's calls that no person approves, p50 and p99 per load (the relay's are all of its). */
function unattendedRows(gate: SystemSummary | undefined): string[] {
  if (gate === undefined || gate.loads.length === 0) return [];
  return [
    "  of the gate's calls, those no person approves (the relay's rows count all of its calls):",
    ...gate.loads.map(
      (l) =>
        `${rowHead(l, 'gate')}${pad(formatSpread(l.unattendedP50), 26)}` +
        formatSpread(l.unattendedP99),
    ),
  ];
}

/** A latency row's load, rate and system columns. */
function rowHead(l: LoadSummary, system: SystemName): string {
  return `  ${pad(`${percentOf(l.fraction)}%`, 6)}${pad(l.offeredPerSec.toFixed(0), 9)}${pad(system, 8)}`;
}

function targetLines(ratios: Ratios): string[] {
  const met = targetsMet(ratios);
  const mark = (ok: boolean) => (ok ? 'met' : 'MISSED');
  return [
    'Targets:',
    `  throughput ratio ≥ 0.50 (aim 0.70): ${ratios.throughput.toFixed(2)} ${mark(met.throughput)}`,
    `  p50 within 2 ms of the relay at half load: ${ratios.p50DeltaMs.toFixed(1)} ms ${mark(met.p50)}`,
    `  p99 at half load ≤ 1.50× the relay's: ${ratios.p99AtHalfLoad.toFixed(2)}× ${mark(met.p99)}`,
    `Without the calls a person approves (not a target): ${latencyRatios(ratios.unattended)}`,
    byRepetitionLine(ratios.byRepetition),
  ];
}

/**
 * `By repetition (3, each gate run against the relay run beside it): throughput 0.71
 * [0.68–0.71], p50 +141 ms [+77 to +179], p99 at half load 1.82× [1.10–1.99]`.
 */
export function byRepetitionLine(by: RatiosByRepetition): string {
  const range = (s: Spread, f: (n: number) => string, sep: string) =>
    s.min === s.max || Number.isNaN(s.median) ? '' : ` [${f(s.min)}${sep}${f(s.max)}]`;
  const fixed = (n: number) => n.toFixed(2);
  const { throughput, p50DeltaMs: p50, p99AtHalfLoad: p99 } = by;
  return (
    `By repetition (${by.repetitions}, each gate run against the relay run beside it): ` +
    `throughput ${fixed(throughput.median)}${range(throughput, fixed, '–')}, ` +
    `p50 ${signedMs(p50.median)} ms${range(p50, signedMs, ' to ')}, ` +
    `p99 at half load ${fixed(p99.median)}×${range(p99, fixed, '–')}`
  );
}
