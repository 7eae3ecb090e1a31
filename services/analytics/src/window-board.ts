/**
 * The windows as the HTTP API and the stream show them: one summary per window, summed over the
 * audit partitions this instance holds, `live` while any of them still counts it and `final` once
 * each has written its final counts.
 */
import type { RefusalCount, WindowRow, WindowSummary } from '@toolgate/platform';
import type { WindowCounts, WindowSize } from '@toolgate/shared';

/** The most principals and runs a summary names: the most refused ones. */
export const TOP_REFUSED = 10;

/** Final counts of a window, by partition, until the window leaves the board. */
type Finals = Map<number, WindowCounts>;

/**
 * Keeps each window's final counts per partition and sums them with the live counts of the
 * partitions still counting it.
 */
export class WindowBoard {
  private readonly finals = new Map<string, Finals>();

  constructor(private readonly keptPerSize = 120) {}

  /** Takes a partition's final counts; returns the window's summary as it now stands. */
  final(counts: WindowCounts, live: readonly WindowCounts[]): WindowSummary {
    const key = keyOf(counts.size, counts.startMs);
    const finals = this.finals.get(key) ?? new Map<number, WindowCounts>();
    finals.set(counts.partition, counts);
    this.finals.set(key, finals);
    this.trim(counts.size);
    return this.summary(counts.size, counts.startMs, live);
  }

  /** The summaries of the windows `live` counts in, with the final counts of other partitions. */
  live(live: readonly WindowCounts[]): WindowSummary[] {
    const open = new Map<string, WindowCounts>();
    for (const c of live) open.set(keyOf(c.size, c.startMs), c);
    return [...open.values()].map((c) => this.summary(c.size, c.startMs, live));
  }

  private summary(size: WindowSize, startMs: number, live: readonly WindowCounts[]): WindowSummary {
    const open = live.filter((c) => c.size === size && c.startMs === startMs);
    const finals = [...(this.finals.get(keyOf(size, startMs))?.values() ?? [])];
    return summarize([...finals, ...open], open.length > 0 ? 'live' : 'final');
  }

  private trim(size: WindowSize): void {
    const keys = [...this.finals.keys()].filter((k) => k.startsWith(`${size}:`));
    const starts = keys.map((k) => Number(k.slice(size.length + 1))).sort((a, b) => a - b);
    for (const start of starts.slice(0, Math.max(0, starts.length - this.keptPerSize))) {
      this.finals.delete(keyOf(size, start));
    }
  }
}

const keyOf = (size: WindowSize, startMs: number) => `${size}:${startMs}`;

/** One summary of the counts of one window (any number of partitions, all of the same window). */
export function summarize(counts: readonly WindowCounts[], state: 'live' | 'final'): WindowSummary {
  const first = counts[0];
  if (first === undefined) throw new RangeError('summarize: no counts');
  const rows = new Map<string, WindowRow>();
  const principals = new Map<string, RefusalCount>();
  const runs = new Map<string, RefusalCount>();
  let late = 0;
  for (const c of counts) {
    late += c.late;
    for (const d of c.decisions) {
      const row = {
        tenant: d.tenant,
        tool: d.tool,
        rung: d.rung,
        code: d.code,
        disposition: d.disposition,
      } as Omit<WindowRow, 'count'>;
      const key = JSON.stringify(row);
      rows.set(key, { ...row, count: (rows.get(key)?.count ?? 0) + d.count });
    }
    for (const p of c.principals) add(principals, p.tenant, p.subject, p.refusals);
    for (const r of c.runs) add(runs, r.tenant, r.runId, r.refusals);
  }
  return {
    start: new Date(first.startMs).toISOString(),
    end: new Date(first.endMs).toISOString(),
    size: first.size,
    state,
    rows: [...rows.values()].sort((a, b) => b.count - a.count),
    late,
    topRefusedPrincipals: top(principals),
    topRefusedRuns: top(runs),
  };
}

function add(into: Map<string, RefusalCount>, tenant: string | null, id: string, n: number): void {
  const key = JSON.stringify([tenant, id]);
  into.set(key, { id, tenant, refusals: (into.get(key)?.refusals ?? 0) + n });
}

function top(counts: Map<string, RefusalCount>): RefusalCount[] {
  return [...counts.values()].sort((a, b) => b.refusals - a.refusals).slice(0, TOP_REFUSED);
}
