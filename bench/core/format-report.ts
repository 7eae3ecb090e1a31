/** The human side of a run: the table on stdout and the one line to quote. */
import type { Cost, CoreResult } from './measure-core.js';
import type { Percentiles, Spread } from './stats.js';

const fixed = (n: number, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : '—');
const pct = (n: number) => `${(100 * n).toFixed(1)}%`;
const range = (s: Spread, digits = 1) => `[${fixed(s.min, digits)}–${fixed(s.max, digits)}]`;
const WIDTHS = [8, 15, 8, 7, 10, 11] as const;

function row(name: string, cells: readonly string[]): string {
  const padded = cells.map((c, i) => (i === 1 ? c.padEnd(WIDTHS[1]) : c.padStart(WIDTHS[i] ?? 10)));
  return [name.padEnd(31), ...padded].join(' ').trimEnd();
}

/** The headline: CPU cost against the baseline, throughput per core and latency percentiles. */
export function finalLine(r: CoreResult): string {
  const ratio = r.ratio === undefined ? '—' : `${r.ratio.cpu.median.toFixed(1)}×`;
  const rate = Math.round(r.ladder.proposalsPerSecondPerCore.median).toLocaleString('en-US');
  const { p50, p99 } = r.ladder.latencyUs;
  return `ladder/baseline: ${ratio} cost, ${rate} proposals/s/core, p50 ${fixed(p50, 0)} µs, p99 ${fixed(p99, 0)} µs`;
}

/** The whole report without the final line, as lines. */
export function formatReport(r: CoreResult): string[] {
  return [...header(r), '', ...costTable(r), '', ...notes(r), '', ...latencyTable(r)];
}

function header(r: CoreResult): string[] {
  const e = r.environment;
  const o = r.options;
  const groups = Object.entries(r.mix['byGroup'] ?? {});
  const mix = groups.map(([g, n]) => `${g} ${pct(n / o.mixSize)}`).join(', ');
  const flags = String(e['execArgv']) === '' ? '' : `, ${String(e['execArgv'])}`;
  return [
    `bench:core — node ${String(e['node'])}${flags}; ${String(e['cpu'])} ×${String(e['cores'])}; load ${String(e['loadBefore'])} → ${String(e['loadAfter'])}`,
    `${o.mode}: ${o.rounds} interleaved rounds, each figure the median [min–max] of the rounds`,
    `mix: ${o.mixSize} proposals (seed ${o.seed}), ${mix}`,
  ];
}

function costRow(name: string, c: Cost, extra: readonly string[]): string {
  return row(name, [
    fixed(c.cpuUs.median, 2),
    range(c.cpuUs, 2),
    fixed(c.wallUs.median, 2),
    ...extra,
  ]);
}

function costTable(r: CoreResult): string[] {
  const ladder = r.ladder.cpuUs.median;
  const lines = [
    row('per proposal of the mix, µs', [
      'CPU',
      '[min–max]',
      'wall',
      'share',
      'calls/pass',
      'CPU µs/call',
    ]),
  ];
  if (r.baseline !== undefined) lines.push(costRow('baseline: JSON.parse + ajv', r.baseline, []));
  lines.push(
    costRow('ladder: evaluate() end to end', r.ladder, ['100%', String(r.options.mixSize)]),
  );
  for (const g of r.rungs) {
    const extra = [pct(g.share), String(g.callsPerPass), fixed(g.cpuUsPerCall, 2)];
    lines.push(costRow(`  ${g.name}`, g.perProposal, extra));
  }
  if (r.unattributedCpuUs !== undefined) {
    const rest = r.unattributedCpuUs;
    lines.push(row('  rest (glue, repair, limits…)', [fixed(rest, 2), '', '', pct(rest / ladder)]));
  }
  return lines;
}

function notes(r: CoreResult): string[] {
  const lines: string[] = [];
  if (r.ratio !== undefined) {
    const { cpu, wall } = r.ratio;
    lines.push(
      `ladder/baseline per round: ${fixed(cpu.median)}× CPU ${range(cpu)}, ${fixed(wall.median)}× wall ${range(wall)}`,
    );
  }
  if (r.verifyUncached !== undefined) {
    const v = r.verifyUncached;
    lines.push(
      `session check without the verifier's cache: ${fixed(v.cpuUsPerCall)} µs CPU per call, ` +
        `${fixed(v.extraCpuUsPerProposal)} µs more per proposal than with it (the ladder above uses the cache, as the real path does)`,
    );
  }
  lines.push(
    `latency is wall clock per evaluate(); each reading of the timer costs ${fixed(r.timerCostNs, 0)} ns`,
  );
  return lines;
}

function latencyTable(r: CoreResult): string[] {
  const line = (name: string, p: Percentiles) =>
    [
      name.padEnd(31),
      ...[p.count, p.p50, p.p90, p.p99, p.p999, p.max].map((n) => fixed(n, 0).padStart(8)),
    ].join(' ');
  return [
    [
      'latency of one evaluate(), µs'.padEnd(31),
      ...['samples', 'p50', 'p90', 'p99', 'p99.9', 'max'].map((h) => h.padStart(8)),
    ].join(' '),
    line('all proposals', r.ladder.latencyUs),
    ...Object.entries(r.ladder.latencyByGroupUs).map(([g, p]) => line(`  ${g}`, p)),
  ];
}
