/**
 * Tumbling event-time windows over one partition of the audit topic, closed by a watermark with a
 * grace period and emitted once, final, when they close.
 *
 * This is the semantics of Kafka Streams' emit-on-window-close (`suppress(Suppressed
 * .untilWindowCloses(...))`, KIP-328, and `EmitStrategy.onWindowClose()`, KIP-825) and of ksqlDB's
 * `EMIT FINAL`: a window's result is published once, when stream time passes its end plus its
 * grace period, and never updated afterwards. Unlike those engines, an event that arrives after its
 * window closed is not dropped silently: it is counted as `late` in the partition's newest open
 * window. And since a partition that receives nothing has no stream time that moves, a window also
 * closes by the clock once the partition has been idle (and read to its end) for a bounded time.
 *
 * Pure: the caller passes the clock (`nowMs`) and whether the partition is read to its end.
 */
import { WINDOW_SIZES, type WindowSize } from '../analytics-types.js';
import {
  countEvent,
  countsOf,
  emptyTally,
  tallyFromSnapshot,
  tallySnapshot,
  windowStartOf,
  type TallySnapshot,
  type WindowCounts,
  type WindowTally,
} from './window-counts.js';
import { windowedEventOf } from './windowed-event.js';

/** How windows close. */
export interface WindowSettings {
  /**
   * Grace period per window size, ms: a window closes once the partition's watermark (the latest
   * event time seen) is past its end plus this. Default 30 s for minutes, 5 min for hours.
   */
  readonly graceMs: Readonly<Record<WindowSize, number>>;
  /**
   * A partition read to its end that received nothing for this long closes its windows by the
   * clock (as if the watermark were now), ms. Default 60 s.
   */
  readonly idleMs: number;
  /**
   * An event time further ahead of the clock than this moves the watermark only to now plus
   * this, ms: one event stamped in the future must not close every window. Default 60 s.
   */
  readonly maxSkewMs: number;
}

/** The defaults of {@link WindowSettings}. */
export const DEFAULT_WINDOW_SETTINGS: WindowSettings = Object.freeze({
  graceMs: Object.freeze({ minute: 30_000, hour: 300_000 }),
  idleMs: 60_000,
  maxSkewMs: 60_000,
});

/** Why a window closed: the watermark passed its end plus grace, or the partition was idle. */
export type ClosedBy = 'watermark' | 'idle';

/** A window's final counts, emitted once. */
export interface FinalWindow {
  readonly counts: WindowCounts;
  readonly closedBy: ClosedBy;
}

/** What one record did to the windows. */
export interface Observed {
  /** Windows the record's event time closed. */
  readonly closed: readonly FinalWindow[];
  /** The sizes whose window of the event had closed already: counted as late. */
  readonly lateIn: readonly WindowSize[];
  /** Why the record is not an audit event (counted as invalid); absent when it is one. */
  readonly invalid?: string;
}

/** A partition's windows as plain JSON, to rebuild them after a restart or a rebalance. */
export interface PartitionWindowsSnapshot {
  /** Latest event time seen, ms; null before any. */
  readonly watermarkMs: number | null;
  /** Per size: every window ending at or before this (ms) is closed; null when none is. */
  readonly closedThroughMs: Readonly<Record<WindowSize, number | null>>;
  /** Clock time of the latest record, ms; null before any. */
  readonly lastArrivalMs: number | null;
  readonly open: readonly TallySnapshot[];
}

const SIZES = Object.keys(WINDOW_SIZES) as WindowSize[];

/** The open windows of one partition, and how they close. */
export class PartitionWindows {
  private watermarkMs: number | null;
  private lastArrivalMs: number | null;
  private readonly closedThroughMs: Record<WindowSize, number | null>;
  private readonly open = new Map<string, WindowTally>();

  constructor(
    readonly partition: number,
    private readonly settings: WindowSettings = DEFAULT_WINDOW_SETTINGS,
    snapshot?: PartitionWindowsSnapshot,
  ) {
    this.watermarkMs = snapshot?.watermarkMs ?? null;
    this.lastArrivalMs = snapshot?.lastArrivalMs ?? null;
    this.closedThroughMs = { minute: null, hour: null, ...snapshot?.closedThroughMs };
    for (const t of snapshot?.open ?? []) {
      this.open.set(keyOf(t.size, t.startMs), tallyFromSnapshot(t));
    }
  }

  /** Counts one record read at `nowMs`, then closes what its event time closes. */
  observe(value: unknown, nowMs: number): Observed {
    this.lastArrivalMs = nowMs;
    const check = windowedEventOf(value);
    if (!check.ok) {
      for (const size of SIZES) this.arrivalWindow(size, nowMs).invalid += 1;
      return { closed: [], lateIn: [], invalid: check.reason };
    }
    const lateIn: WindowSize[] = [];
    for (const size of SIZES) {
      const start = windowStartOf(size, check.atMs);
      if (this.isClosed(size, start)) {
        this.arrivalWindow(size, nowMs).late += 1;
        lateIn.push(size);
      } else {
        countEvent(this.tally(size, start), check.event);
      }
    }
    const bounded = Math.min(check.atMs, nowMs + this.settings.maxSkewMs);
    this.watermarkMs = Math.max(this.watermarkMs ?? bounded, bounded);
    return { closed: this.closeUpTo(this.watermarkMs, 'watermark'), lateIn };
  }

  /**
   * Tells the windows the time is `nowMs`. When the partition is read to its end (`caughtUp`)
   * and nothing arrived for `idleMs`, the clock stands in for the watermark: windows whose end
   * plus grace is past close. A partition with a backlog waits for its events instead.
   */
  tick(nowMs: number, caughtUp: boolean): readonly FinalWindow[] {
    if (!caughtUp || this.open.size === 0) return [];
    if (this.lastArrivalMs !== null && nowMs - this.lastArrivalMs < this.settings.idleMs) return [];
    return this.closeUpTo(nowMs, 'idle');
  }

  /** The open windows' counts (live, not final), oldest first. */
  live(): readonly WindowCounts[] {
    return [...this.open.values()]
      .sort((a, b) => a.startMs - b.startMs || a.size.localeCompare(b.size))
      .map((t) => countsOf(t, this.partition));
  }

  /** The latest event time seen, ms since the epoch; null before any. */
  watermark(): number | null {
    return this.watermarkMs;
  }

  /** The state as JSON, for {@link PartitionWindows}' constructor. */
  snapshot(): PartitionWindowsSnapshot {
    return {
      watermarkMs: this.watermarkMs,
      closedThroughMs: { ...this.closedThroughMs },
      lastArrivalMs: this.lastArrivalMs,
      open: [...this.open.values()].map(tallySnapshot),
    };
  }

  private isClosed(size: WindowSize, startMs: number): boolean {
    const through = this.closedThroughMs[size];
    return through !== null && startMs + WINDOW_SIZES[size] <= through;
  }

  private tally(size: WindowSize, startMs: number): WindowTally {
    const key = keyOf(size, startMs);
    let tally = this.open.get(key);
    if (tally === undefined) {
      tally = emptyTally(size, startMs);
      this.open.set(key, tally);
    }
    return tally;
  }

  /**
   * The partition's newest open window of `size`: the one holding the watermark, or the first
   * after the closed ones (always open), or the clock's before any event.
   */
  private arrivalWindow(size: WindowSize, nowMs: number): WindowTally {
    const through = this.closedThroughMs[size];
    const at = Math.max(this.watermarkMs ?? -Infinity, through === null ? -Infinity : through);
    return this.tally(size, windowStartOf(size, Number.isFinite(at) ? at : nowMs));
  }

  /** Closes every window whose end plus grace is before `timeMs`. */
  private closeUpTo(timeMs: number, closedBy: ClosedBy): FinalWindow[] {
    const closed: FinalWindow[] = [];
    for (const size of SIZES) {
      // end + grace < time, in whole ms: end <= time - grace - 1.
      const through = timeMs - this.settings.graceMs[size] - 1;
      this.closedThroughMs[size] = Math.max(this.closedThroughMs[size] ?? through, through);
      for (const [key, tally] of this.open) {
        if (tally.size === size && this.isClosed(size, tally.startMs)) {
          this.open.delete(key);
          closed.push({ counts: countsOf(tally, this.partition), closedBy });
        }
      }
    }
    return closed.sort((a, b) => a.counts.startMs - b.counts.startMs);
  }
}

function keyOf(size: WindowSize, startMs: number): string {
  return `${size}@${startMs}`;
}
