/**
 * The walk-around section of the summary: one line per attempt to get around the gate, with who
 * tried and what stopped it, as observed. Pure: the attempts are made elsewhere.
 */

/** One attempt and what came of it. */
export interface AttemptLine {
  /** Its number in the section, e.g. `2b`. */
  readonly no: string;
  /** What was tried, e.g. `produce a command to toolgate.commands.refund_payment`. */
  readonly attempt: string;
  /** The principal (or Redis user) it was tried as. */
  readonly as: string;
  /** True only when what stopped it was observed. */
  readonly stopped: boolean;
  /** What stopped it, as observed; or, when not stopped, what was seen instead. */
  readonly detail: string;
}

/** What the section prints in the last column of an attempt that was not stopped. */
export const NOT_STOPPED = 'NOT STOPPED';

/** The section's table: `#`, `attempt`, `as`, `stopped by`, with a rule under the header. */
export function walkAroundTable(lines: readonly AttemptLine[]): string {
  const rows = lines.map((l) => [l.no, l.attempt, l.as, stoppedBy(l)]);
  const header = ['#', 'attempt', 'as', 'stopped by'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]?.length ?? 0)));
  const format = (cells: readonly string[]) =>
    cells
      .map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
      .join('  ');
  const rule = widths.map((w) => '-'.repeat(w));
  return [format(header), format(rule), ...rows.map(format)].join('\n');
}

/** The last column of `line`: its detail, marked when the attempt was not stopped. */
export function stoppedBy(line: AttemptLine): string {
  return line.stopped ? line.detail : `${NOT_STOPPED}: ${line.detail}`;
}

/** The section's closing sentence. */
export function walkAroundVerdict(lines: readonly AttemptLine[]): string {
  const open = lines.filter((l) => !l.stopped).length;
  return open === 0
    ? `all ${lines.length} walk-around attempts were stopped`
    : `${open} of ${lines.length} walk-around attempts were ${NOT_STOPPED}`;
}
