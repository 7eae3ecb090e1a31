/**
 * One subject's sliding window over event time: the matching audit events whose `at` lies within
 * the window that ends at the newest event time the engine has seen, with running counts, so that
 * judging a window costs the same however full it is.
 */
import type { AuditPosition } from '../analytics-types.js';

/**
 * Most entries one subject's window keeps for one rule; past it the oldest go first (counts are
 * then a lower bound, still far above any threshold). Bounds the memory a flood can take.
 */
export const MAX_ENTRIES_PER_SUBJECT = 10_000;

/** One matching audit event, with what it counts for (`marks`, e.g. object ids or a code). */
export interface WindowEntry {
  readonly atMs: number;
  readonly eventId: string;
  readonly position: AuditPosition;
  readonly marks: readonly string[];
}

/** What a window holds now. */
export interface WindowTally {
  /** Entries in the window. */
  readonly total: number;
  /** For each mark, how many entries in the window carry it; its size is the distinct marks. */
  readonly marks: ReadonlyMap<string, number>;
}

/** A subject's window: entries in event-time order, oldest first. */
export class SlidingWindow implements WindowTally {
  private entries: WindowEntry[] = [];
  private head = 0;
  readonly marks = new Map<string, number>();

  constructor(private readonly windowMs: number) {}

  /** Entries in the window. */
  get total(): number {
    return this.entries.length - this.head;
  }

  /** Event time of the oldest entry, or undefined when empty. */
  get startMs(): number | undefined {
    return this.entries[this.head]?.atMs;
  }

  /** Adds `entry` in event-time order, then drops what is older than the window ending at `watermarkMs`. */
  add(entry: WindowEntry, watermarkMs: number): void {
    let at = this.entries.length;
    // Events arrive nearly in time order (the stages' clocks differ slightly): a short walk back.
    while (at > this.head && (this.entries[at - 1]?.atMs ?? 0) > entry.atMs) at -= 1;
    this.entries.splice(at, 0, entry);
    for (const mark of entry.marks) this.marks.set(mark, (this.marks.get(mark) ?? 0) + 1);
    while (this.total > MAX_ENTRIES_PER_SUBJECT) this.dropOldest();
    this.prune(watermarkMs);
  }

  /** Drops the entries at or before `watermarkMs - windowMs`. */
  prune(watermarkMs: number): void {
    const cutoff = watermarkMs - this.windowMs;
    while (this.total > 0 && (this.entries[this.head]?.atMs ?? Infinity) <= cutoff) {
      this.dropOldest();
    }
    if (this.head > 1024 && this.head * 2 > this.entries.length) {
      this.entries = this.entries.slice(this.head);
      this.head = 0;
    }
  }

  /** The oldest `limit` entries, oldest first. */
  oldest(limit: number): readonly WindowEntry[] {
    return this.entries.slice(this.head, this.head + limit);
  }

  private dropOldest(): void {
    const gone = this.entries[this.head];
    if (gone === undefined) return;
    this.head += 1;
    for (const mark of gone.marks) {
      const left = (this.marks.get(mark) ?? 1) - 1;
      if (left === 0) this.marks.delete(mark);
      else this.marks.set(mark, left);
    }
  }
}
