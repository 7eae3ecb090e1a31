/**
 * The counts of one tumbling window of one source partition, and the record shapes they are
 * published as: decisions by tenant, tool, rung, code and disposition; refusals by principal
 * (tenant + subject) and by run.
 */
import { isRefusal } from '../../audit-summary/is-refusal.js';
import { WINDOW_SIZES, type WindowSize } from '../analytics-types.js';
import type { WindowedEvent } from './windowed-event.js';

/** Decisions of one combination of dimensions. */
export interface DecisionCount {
  readonly tenant: string | null;
  readonly tool: string | null;
  /** The audit event's `stage` field: the rung that decided. */
  readonly rung: string;
  readonly code: string | null;
  readonly disposition: string | null;
  /** Whether these decisions are refusals (`isRefusal`: a code, and not a pending confirmation). */
  readonly refusal: boolean;
  readonly count: number;
}

/** Refusals of one principal (`isRefusal`). */
export interface PrincipalRefusals {
  readonly tenant: string | null;
  readonly subject: string;
  readonly refusals: number;
}

/** Refusals of one run (`isRefusal`). */
export interface RunRefusals {
  readonly tenant: string | null;
  readonly runId: string;
  readonly refusals: number;
}

/**
 * One window's counts on one partition of the audit topic: open (live, still changing) or final
 * (closed, emitted once).
 */
export interface WindowCounts {
  readonly size: WindowSize;
  /** Window start, ms since the epoch (inclusive). */
  readonly startMs: number;
  /** Window end, ms since the epoch (exclusive): start + the size's length. */
  readonly endMs: number;
  /** The audit topic partition the counts are of. */
  readonly partition: number;
  /** Audit events counted in the window (by event time). */
  readonly events: number;
  /** Of those, refusals. */
  readonly refusals: number;
  /**
   * Events that arrived while this was the partition's newest window but belonged to a window
   * already closed: not in any window's counts, never dropped silently.
   */
  readonly late: number;
  /** Records that arrived meanwhile and were not audit events (never counted). */
  readonly invalid: number;
  readonly decisions: readonly DecisionCount[];
  readonly principals: readonly PrincipalRefusals[];
  readonly runs: readonly RunRefusals[];
}

/** A window's counts as they are being built: keyed maps (JSON arrays of the dimensions). */
export interface WindowTally {
  readonly size: WindowSize;
  readonly startMs: number;
  events: number;
  refusals: number;
  late: number;
  invalid: number;
  readonly decisions: Map<string, number>;
  readonly principals: Map<string, number>;
  readonly runs: Map<string, number>;
}

/** The start of the `size` window that holds `ms`. */
export function windowStartOf(size: WindowSize, ms: number): number {
  return Math.floor(ms / WINDOW_SIZES[size]) * WINDOW_SIZES[size];
}

/** An empty tally of the `size` window starting at `startMs`. */
export function emptyTally(size: WindowSize, startMs: number): WindowTally {
  return {
    size,
    startMs,
    events: 0,
    refusals: 0,
    late: 0,
    invalid: 0,
    decisions: new Map(),
    principals: new Map(),
    runs: new Map(),
  };
}

/** Adds one event to `tally`. */
export function countEvent(tally: WindowTally, event: WindowedEvent): void {
  tally.events += 1;
  const refusal = isRefusal(event);
  bump(
    tally.decisions,
    JSON.stringify([event.tenant, event.tool, event.stage, event.code, event.disposition, refusal]),
  );
  if (!refusal) return;
  tally.refusals += 1;
  if (event.subject !== null) bump(tally.principals, JSON.stringify([event.tenant, event.subject]));
  if (event.runId !== null) bump(tally.runs, JSON.stringify([event.tenant, event.runId]));
}

/** `tally` as counts of `partition`, each list in key order. */
export function countsOf(tally: WindowTally, partition: number): WindowCounts {
  return {
    size: tally.size,
    startMs: tally.startMs,
    endMs: tally.startMs + WINDOW_SIZES[tally.size],
    partition,
    events: tally.events,
    refusals: tally.refusals,
    late: tally.late,
    invalid: tally.invalid,
    decisions: entries<Dims5>(tally.decisions).map(
      ([[tenant, tool, rung, code, disposition, refusal], count]) => ({
        tenant,
        tool,
        rung: rung ?? '-',
        code,
        disposition,
        refusal,
        count,
      }),
    ),
    principals: entries<Dims2>(tally.principals).map(([[tenant, subject], refusals]) => ({
      tenant,
      subject: subject ?? '-',
      refusals,
    })),
    runs: entries<Dims2>(tally.runs).map(([[tenant, runId], refusals]) => ({
      tenant,
      runId: runId ?? '-',
      refusals,
    })),
  };
}

/** A tally as plain JSON (for a snapshot): the maps as `[key, count]` pairs. */
export interface TallySnapshot {
  readonly size: WindowSize;
  readonly startMs: number;
  readonly events: number;
  readonly refusals: number;
  readonly late: number;
  readonly invalid: number;
  readonly decisions: readonly (readonly [string, number])[];
  readonly principals: readonly (readonly [string, number])[];
  readonly runs: readonly (readonly [string, number])[];
}

/** `tally` as JSON. */
export function tallySnapshot(tally: WindowTally): TallySnapshot {
  return {
    ...tally,
    decisions: [...tally.decisions],
    principals: [...tally.principals],
    runs: [...tally.runs],
  };
}

/** The tally a {@link tallySnapshot} was taken of. */
export function tallyFromSnapshot(s: TallySnapshot): WindowTally {
  return {
    size: s.size,
    startMs: s.startMs,
    events: s.events,
    refusals: s.refusals,
    late: s.late,
    invalid: s.invalid,
    decisions: new Map(s.decisions),
    principals: new Map(s.principals),
    runs: new Map(s.runs),
  };
}

function bump(map: Map<string, number>, key: string): void {
  map.set(key, (map.get(key) ?? 0) + 1);
}

type Dim = string | null;
type Dims2 = [Dim, Dim];
type Dims5 = [Dim, Dim, Dim, Dim, Dim, boolean];

/** The map's entries in key order, each key parsed back to the dimensions it was made of. */
function entries<K extends (Dim | boolean)[]>(map: ReadonlyMap<string, number>): [K, number][] {
  return [...map.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([key, count]) => [JSON.parse(key) as K, count]);
}
