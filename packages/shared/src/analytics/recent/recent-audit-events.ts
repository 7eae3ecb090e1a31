/**
 * The recent audit events behind the windows' counts, kept in memory and bounded, so that a count
 * can be opened to the events that make it. Whether a window's events were all kept is answered
 * too: events are dropped by the cap and by age, a partition's events before it was taken over
 * were read by its previous owner, and a partition given away takes its events with it.
 */
import type { AuditEvent } from '../../messages/audit-event.js';

/** Default audit events kept at most, over every partition held. */
export const DEFAULT_KEPT_AUDIT_EVENTS = 20_000;

/** The most spans of dropped events remembered; beyond it they are merged into one. */
const MAX_GAPS = 64;

/** The fields of an audit event the drill-down shows; the rest is not kept. */
export type KeptAuditEvent = Pick<
  AuditEvent,
  | 'eventId'
  | 'at'
  | 'kind'
  | 'tenant'
  | 'tool'
  | 'stage'
  | 'code'
  | 'disposition'
  | 'subject'
  | 'runId'
  | 'proposalId'
  | 'confirmationId'
  | 'internalDetail'
>;

/** Which kept events a drill-down asks for: an event-time span and any of a row's values. */
export interface KeptEventFilter {
  /** Event-time start, inclusive, ms since the epoch. */
  readonly startMs: number;
  /** Event-time end, exclusive, ms since the epoch. */
  readonly endMs: number;
  readonly tenant?: string;
  readonly tool?: string;
  readonly stage?: AuditEvent['stage'];
  readonly code?: NonNullable<AuditEvent['code']>;
  readonly disposition?: NonNullable<AuditEvent['disposition']>;
  readonly subject?: string;
  readonly runId?: string;
  /** At most this many are returned, newest first. */
  readonly limit: number;
}

/** The kept events of a span, newest first, and whether every event of the span was kept. */
export interface KeptEventPage {
  readonly events: readonly KeptAuditEvent[];
  readonly complete: boolean;
}

/** Options of {@link RecentAuditEvents}. */
export interface RecentAuditEventsOptions {
  /** Events kept at most; the earliest added go first. Default {@link DEFAULT_KEPT_AUDIT_EVENTS}. */
  readonly maxEvents?: number;
  /** Events whose event time is older than this many ms are dropped. */
  readonly keepMs: number;
}

interface Entry {
  readonly partition: number;
  readonly atMs: number;
  readonly event: KeptAuditEvent;
}

/** An event-time span, inclusive at both ends, in which events may have been dropped. */
interface Gap {
  readonly fromMs: number;
  readonly toMs: number;
}

/** Recent audit events of the partitions held, by event id, the earliest added first. */
export class RecentAuditEvents {
  private readonly entries = new Map<string, Entry>();
  private readonly heldSince = new Map<number, number>();
  private readonly maxEvents: number;
  private gaps: Gap[] = [];
  /** The latest event time of any event dropped by the cap or by age. */
  private droppedThroughMs = -Infinity;

  constructor(private readonly options: RecentAuditEventsOptions) {
    this.maxEvents = options.maxEvents ?? DEFAULT_KEPT_AUDIT_EVENTS;
  }

  /**
   * `partition` is held from `sinceMs` on: its events before were read by another owner. Held
   * again (restored after a failed transaction), it keeps its first time: nothing was missed.
   */
  hold(partition: number, sinceMs: number): void {
    if (!this.heldSince.has(partition)) this.heldSince.set(partition, sinceMs);
  }

  /** `partition` went to another owner: its events are dropped, and their span marked as such. */
  release(partition: number, nowMs: number): void {
    this.heldSince.delete(partition);
    let fromMs = Infinity;
    let toMs = -Infinity;
    for (const [id, entry] of this.entries) {
      if (entry.partition !== partition) continue;
      this.entries.delete(id);
      fromMs = Math.min(fromMs, entry.atMs);
      toMs = Math.max(toMs, entry.atMs);
    }
    if (fromMs <= toMs) this.gaps.push({ fromMs, toMs });
    this.trimGaps(nowMs);
  }

  /** Keeps `event` (at `atMs`, event time) of `partition`, dropping what the cap and age say. */
  add(partition: number, event: KeptAuditEvent, atMs: number, nowMs: number): void {
    const oldestKept = nowMs - this.options.keepMs;
    if (atMs < oldestKept) {
      this.droppedThroughMs = Math.max(this.droppedThroughMs, atMs);
      return;
    }
    this.entries.set(event.eventId, { partition, atMs, event: keptAuditEvent(event) });
    for (const [id, entry] of this.entries) {
      if (this.entries.size <= this.maxEvents && entry.atMs >= oldestKept) break;
      this.entries.delete(id);
      this.droppedThroughMs = Math.max(this.droppedThroughMs, entry.atMs);
    }
  }

  /** The kept events `filter` matches, newest first, and whether the span's events were all kept. */
  page(filter: KeptEventFilter, nowMs: number): KeptEventPage {
    const matching: Entry[] = [];
    for (const entry of this.entries.values()) {
      if (matches(entry, filter)) matching.push(entry);
    }
    matching.sort((a, b) => b.atMs - a.atMs);
    return {
      events: matching.slice(0, filter.limit).map((e) => e.event),
      complete: this.complete(filter.startMs, filter.endMs, nowMs),
    };
  }

  /** Events kept now. */
  size(): number {
    return this.entries.size;
  }

  /**
   * Whether every event of `[startMs, endMs)` of the partitions held was kept: the span is not
   * older than events are kept, no event at or after its start was dropped, every partition was
   * held since before it began, and no partition given away had events in it.
   */
  private complete(startMs: number, endMs: number, nowMs: number): boolean {
    if (this.heldSince.size === 0) return false;
    if (startMs < nowMs - this.options.keepMs || startMs <= this.droppedThroughMs) return false;
    for (const since of this.heldSince.values()) if (since > startMs) return false;
    return !this.gaps.some((g) => g.fromMs < endMs && g.toMs >= startMs);
  }

  /** Forgets gaps older than anything kept, and merges them when there are too many. */
  private trimGaps(nowMs: number): void {
    const oldestKept = nowMs - this.options.keepMs;
    this.gaps = this.gaps.filter((g) => g.toMs >= oldestKept);
    if (this.gaps.length <= MAX_GAPS) return;
    const fromMs = Math.min(...this.gaps.map((g) => g.fromMs));
    const toMs = Math.max(...this.gaps.map((g) => g.toMs));
    this.gaps = [{ fromMs, toMs }];
  }
}

/**
 * Only the fields a drill-down shows, copied from `e` (which may be a whole audit event): an audit
 * event's arguments and ids are neither held for the drill-down nor shown by it.
 */
export function keptAuditEvent(e: KeptAuditEvent): KeptAuditEvent {
  return {
    eventId: e.eventId,
    at: e.at,
    kind: e.kind,
    tenant: e.tenant,
    tool: e.tool,
    stage: e.stage,
    code: e.code,
    disposition: e.disposition,
    subject: e.subject,
    runId: e.runId,
    proposalId: e.proposalId,
    confirmationId: e.confirmationId,
    ...(e.internalDetail === undefined ? {} : { internalDetail: e.internalDetail }),
  };
}

function matches({ atMs, event: e }: Entry, f: KeptEventFilter): boolean {
  return (
    atMs >= f.startMs &&
    atMs < f.endMs &&
    (f.tenant === undefined || e.tenant === f.tenant) &&
    (f.tool === undefined || e.tool === f.tool) &&
    (f.stage === undefined || e.stage === f.stage) &&
    (f.code === undefined || e.code === f.code) &&
    (f.disposition === undefined || e.disposition === f.disposition) &&
    (f.subject === undefined || e.subject === f.subject) &&
    (f.runId === undefined || e.runId === f.runId)
  );
}
