/**
 * A chaos report as people read it: a plain-text table for the terminal (fault kind × invariant,
 * with each kind's hold-up), the JSON file the run leaves behind, and the markdown block of
 * docs/reliability.md.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { INVARIANTS, type ChaosReport, type Invariant } from './chaos-facts.js';

/** Where a run's report is written by default, from the repository's root. */
export const CHAOS_REPORT_PATH = 'bench/results/chaos-latest.json';

/** The line that says what ran. */
export function runLine(r: ChaosReport): string {
  const nodes = `${r.kafkaNodes} Kafka node${r.kafkaNodes === 1 ? '' : 's'}`;
  const redis = r.redisCluster ? 'Redis Cluster' : 'one Redis server';
  return (
    `${r.mode} chaos run, seed ${r.seed}: ${r.proposals} proposals at ${r.rate}/s over ` +
    `${r.durationSeconds.toFixed(1)} s, ${r.faults} fault${r.faults === 1 ? '' : 's'}; ` +
    `${r.instancesPerStage} instances per ` +
    `stage, ${r.toolWorkers} tool workers, ${nodes}, ${redis}`
  );
}

/** The table's rows: a header, one row per fault kind, breaches near no fault, and the totals. */
function tableRows(r: ChaosReport): string[][] {
  const header = ['fault', 'injected', 'overlapping', ...INVARIANTS, 'hold-up max', 'median'];
  const counts = (broken: Readonly<Record<Invariant, number>>) =>
    INVARIANTS.map((inv) => String(broken[inv]));
  const rows = r.rows.map((row) => [
    row.kind,
    String(row.injected),
    String(row.overlapping),
    ...counts(row.broken),
    seconds(row.holdUpMs.max),
    seconds(row.holdUpMs.median),
  ]);
  const none =
    r.unattributed === undefined
      ? []
      : [['near no fault', '', '', ...counts(r.unattributed), '', '']];
  const totals = [
    'all: broken of checked',
    String(r.faults),
    String(r.rows.reduce((n, row) => n + row.overlapping, 0)),
    ...INVARIANTS.map((inv) => `${r.invariants[inv].broken} of ${r.invariants[inv].checked}`),
    '',
    '',
  ];
  return [header, ...rows, ...none, totals];
}

/** The report as a plain-text table, with the duplicates, the verdict and a few breaches. */
export function formatChaosTable(r: ChaosReport): string {
  const rows = tableRows(r);
  const widths = (rows[0] ?? []).map((_, i) =>
    Math.max(...rows.map((row) => (row[i] ?? '').length)),
  );
  const line = (row: readonly string[]) =>
    row
      .map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return [
    runLine(r),
    ...rows.map(line),
    duplicateLine(r),
    ...optional(pauseLine(r)),
    ...optional(fencedLine(r)),
    verdictLine(r),
    ...breachLines(r).map((b) => `  ${b}`),
  ].join('\n');
}

function duplicateLine(r: ChaosReport): string {
  const { count, sameOutcome } = r.duplicateTerminals;
  return `duplicate terminal observations: ${count} (${sameOutcome} with the first's outcome, ${count - sameOutcome} with another)`;
}

/** How the paused instances woke: a fenced one proves the broker aborted a zombie's transaction. */
function pauseLine(r: ChaosReport): string | undefined {
  if (r.pauses === undefined || r.pauses.count === 0) return undefined;
  const { count, fencedOnWaking } = r.pauses;
  return `paused instances: ${count}, of which ${fencedOnWaking} woke fenced (their open transaction aborted) and were started again`;
}

/** Instances that stopped fenced outside a pause: each one's log names the transaction it lost. */
function fencedLine(r: ChaosReport): string | undefined {
  const targets = r.fencedElsewhere ?? [];
  if (targets.length === 0) return undefined;
  return `instances that stopped fenced outside a pause and were started again: ${targets.length} (${targets.join(', ')})`;
}

function verdictLine(r: ChaosReport): string {
  const margin =
    r.marginMs === undefined
      ? ''
      : ` (a breach or gap counts for a fault within ${seconds(r.marginMs)} of it)`;
  return r.ok ? `verdict: ok, no invariant broke${margin}` : `verdict: BROKEN${margin}`;
}

function breachLines(r: ChaosReport): string[] {
  return INVARIANTS.flatMap((inv) => r.invariants[inv].examples.map((e) => `${inv}: ${e}`));
}

/** Writes `report` as JSON to `file` (default {@link CHAOS_REPORT_PATH}), making its folder. */
export function writeChaosReport(report: ChaosReport, file: string = CHAOS_REPORT_PATH): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
}

/** The report as markdown: what ran, the table, duplicates, the verdict and its breaches. */
export function chaosMarkdown(r: ChaosReport): string {
  const [header = [], ...body] = tableRows(r);
  const cell = (text: string) => text.replaceAll('|', '\\|');
  const row = (cells: readonly string[]) => `| ${cells.map(cell).join(' | ')} |`;
  const align = header.map((_, i) => (i === 0 ? '---' : '---:'));
  const breaches = breachLines(r);
  return [
    `Latest run (${r.at}): ${runLine(r)}.`,
    '',
    row(header.map((h) => (INVARIANTS.includes(h as Invariant) ? `\`${h}\`` : h))),
    `| ${align.join(' | ')} |`,
    ...body.map(row),
    '',
    `${[duplicateLine(r), ...optional(pauseLine(r)), ...optional(fencedLine(r)), verdictLine(r)].join('; ')}.`,
    ...(breaches.length === 0 ? [] : ['', ...breaches.map((b) => `- ${b}`)]),
  ].join('\n');
}

function optional(line: string | undefined): string[] {
  return line === undefined ? [] : [line];
}

function seconds(ms: number): string {
  return Number.isFinite(ms) ? `${(ms / 1000).toFixed(1)} s` : '–';
}

/** The markers of the block of docs/reliability.md that holds the latest run. */
export const CHAOS_BLOCK = {
  start: '<!-- chaos-latest:start -->',
  end: '<!-- chaos-latest:end -->',
} as const;

/**
 * `page` with what lies between the {@link CHAOS_BLOCK} markers replaced by `block`.
 *
 * @throws Error when the page lacks either marker.
 */
export function replaceChaosBlock(page: string, block: string): string {
  const start = page.indexOf(CHAOS_BLOCK.start);
  const end = page.indexOf(CHAOS_BLOCK.end, start);
  if (start === -1 || end === -1) {
    throw new Error(`the page has no ${CHAOS_BLOCK.start} … ${CHAOS_BLOCK.end} block`);
  }
  return `${page.slice(0, start + CHAOS_BLOCK.start.length)}\n${block}\n${page.slice(end)}`;
}
