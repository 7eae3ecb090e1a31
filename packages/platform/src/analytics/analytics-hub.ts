/**
 * An in-memory {@link AnalyticsView} the analytics service feeds: it keeps the recent windows of
 * each size, the recent alerts, the recent audit events and the approval steps of the partitions
 * it holds, all bounded, and passes every change to the subscribed streams.
 */
import {
  ApprovalLedger,
  keptAuditEvent,
  RecentAuditEvents,
  REJECTION_CODES,
  WINDOW_SIZES,
  type Alert,
  type AuditEvent,
  type CodeSpec,
  type KeptAuditEvent,
  type KeptEventFilter,
  type WindowSize,
} from '@toolgate/shared';
import { DEFAULT_EVENTS_LIMIT } from './analytics-query.js';
import type {
  AnalyticsQuery,
  AnalyticsUpdate,
  AnalyticsView,
  ApprovalHealth,
  ApprovalSpan,
  AuditEventPage,
  AuditEventQuery,
  AuditEventView,
  WindowSummary,
} from './analytics-view.js';

/** Default windows kept per size: two hours of minutes, two days of hours. */
export const DEFAULT_KEPT_WINDOWS: Readonly<Record<WindowSize, number>> = { minute: 120, hour: 48 };

/** Default alerts kept. */
export const DEFAULT_KEPT_ALERTS = 1000;

/**
 * Default time audit events are kept for the drill-down, by event time, ms: an hour window and
 * its default grace (5 min), so the open hour window's events are all there.
 */
export const DEFAULT_AUDIT_EVENTS_KEPT_MS = WINDOW_SIZES.hour + 300_000;

/** Options of {@link createAnalyticsHub}. */
export interface AnalyticsHubOptions {
  /** Audit events kept at most; default `DEFAULT_KEPT_AUDIT_EVENTS` (20,000). */
  readonly keptAuditEvents?: number;
  /** Audit events older than this (event time) are dropped, ms; default {@link DEFAULT_AUDIT_EVENTS_KEPT_MS}. */
  readonly auditEventsKeptMs?: number;
  /** The clock, ms since the epoch; default `Date.now`. */
  readonly now?: () => number;
  /** Windows kept per size, the latest by start; default {@link DEFAULT_KEPT_WINDOWS}. */
  readonly keptWindows?: Partial<Readonly<Record<WindowSize, number>>>;
  /** Alerts kept, the latest raised; default {@link DEFAULT_KEPT_ALERTS}. */
  readonly keptAlerts?: number;
}

/** The view, and what the service tells it. */
export interface AnalyticsHub extends AnalyticsView {
  /** A window's counts as they are now (live) or final; replaces the window of the same size and start. */
  window(summary: WindowSummary): void;
  /** An alert raised; replaces one of the same `alertId` (a rule re-raised for the same window). */
  alert(alert: Alert): void;
  /** As {@link AnalyticsView.windows}, at once. */
  windows(size: WindowSize, query: AnalyticsQuery): readonly WindowSummary[];
  /** As {@link AnalyticsView.alerts}, at once. */
  alerts(query: AnalyticsQuery): readonly Alert[];
  /** Audit events of `partition` consumed, in partition order: kept for the drill-down and approvals. */
  audited(partition: number, events: readonly AuditEvent[]): void;
  /** `partition` is held from `sinceMs` on (its earlier events were read by its previous owner). */
  held(partition: number, sinceMs: number): void;
  /** `partition` went to another owner: its events and approval steps are dropped. */
  released(partition: number): void;
  /** As {@link AnalyticsView.events}, at once. */
  events(query: AuditEventQuery, tenant: string | undefined): AuditEventPage;
  /** As {@link AnalyticsView.approvals}, at once. */
  approvals(span: ApprovalSpan, tenant: string | undefined): ApprovalHealth;
}

/** A fresh, empty hub. */
export function createAnalyticsHub(options: AnalyticsHubOptions = {}): AnalyticsHub {
  const kept = { ...DEFAULT_KEPT_WINDOWS, ...options.keptWindows };
  const keptAlerts = options.keptAlerts ?? DEFAULT_KEPT_ALERTS;
  const windows = Object.fromEntries(
    Object.keys(WINDOW_SIZES).map((size) => [size, new Map<string, WindowSummary>()]),
  ) as Record<WindowSize, Map<string, WindowSummary>>;
  const alerts = new Map<string, Alert>();
  const listeners = new Set<(update: AnalyticsUpdate) => void>();
  const publish = (update: AnalyticsUpdate) => {
    for (const listener of listeners) listener(update);
  };
  const now = options.now ?? Date.now;
  const recent = new RecentAuditEvents({
    keepMs: options.auditEventsKeptMs ?? DEFAULT_AUDIT_EVENTS_KEPT_MS,
    ...(options.keptAuditEvents === undefined ? {} : { maxEvents: options.keptAuditEvents }),
  });
  const approvals = new ApprovalLedger();
  return {
    window: (summary) => {
      const bySize = windows[summary.size];
      bySize.set(summary.start, summary);
      trim(bySize, kept[summary.size], (a, b) => Date.parse(a.start) - Date.parse(b.start));
      publish({ kind: 'window', window: summary });
    },
    alert: (alert) => {
      alerts.set(alert.alertId, alert);
      trim(alerts, keptAlerts, (a, b) => Date.parse(a.raisedAt) - Date.parse(b.raisedAt));
      publish({ kind: 'alert', alert });
    },
    windows: (size, { since }) =>
      sorted(windows[size], (w) => Date.parse(w.start)).filter(
        (w) => since === undefined || Date.parse(w.end) > since.getTime(),
      ),
    alerts: ({ since }) =>
      sorted(alerts, (a) => Date.parse(a.raisedAt)).filter(
        (a) => since === undefined || Date.parse(a.raisedAt) >= since.getTime(),
      ),
    subscribe: (listener) => {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    audited: (partition, events) => {
      const nowMs = now();
      for (const event of events) {
        const atMs = Date.parse(event.at);
        recent.add(partition, event, atMs, nowMs);
        approvals.record(partition, event, atMs, nowMs);
      }
    },
    held: (partition, sinceMs) => {
      recent.hold(partition, sinceMs);
      approvals.hold(partition, sinceMs);
    },
    released: (partition) => {
      recent.release(partition, now());
      approvals.release(partition);
    },
    events: (query, tenant) => {
      const page = recent.page(filterOf(query, tenant), now());
      // Another tenant's events are never matched, whatever tenant the query names.
      const foreign = tenant !== undefined && query.tenant !== undefined && query.tenant !== tenant;
      return { events: foreign ? [] : page.events.map(viewOf), complete: page.complete };
    },
    approvals: (span, tenant) => {
      const measured = approvals.health(
        { sinceMs: span.since.getTime(), untilMs: span.until.getTime() },
        tenant,
      );
      const { sinceMs, ...tally } = measured;
      return { since: new Date(sinceMs).toISOString(), until: span.until.toISOString(), ...tally };
    },
  };
}

/** What the kept events are searched for: the query's window and values, within `tenant`. */
function filterOf(query: AuditEventQuery, tenant: string | undefined): KeptEventFilter {
  const startMs = Date.parse(query.start);
  return {
    startMs,
    endMs: startMs + WINDOW_SIZES[query.size],
    ...pick(query, ['tenant', 'tool', 'code', 'disposition', 'subject', 'runId']),
    ...(query.rung === undefined ? {} : { stage: query.rung }),
    ...(tenant === undefined ? {} : { tenant }),
    limit: query.limit ?? DEFAULT_EVENTS_LIMIT,
  };
}

/** The fields of `from` named in `names` that are set. */
function pick<T extends object, K extends keyof T>(
  from: T,
  names: readonly K[],
): Partial<Pick<T, K>> {
  return Object.fromEntries(
    names.filter((n) => from[n] !== undefined).map((n) => [n, from[n]]),
  ) as Partial<Pick<T, K>>;
}

/** A kept event as the drill-down shows it: its stage as the rung, and what the agent was told. */
function viewOf(e: KeptAuditEvent): AuditEventView {
  const { stage, ...shown } = keptAuditEvent(e);
  return { ...shown, rung: stage, publicMessage: publicMessageOf(e) };
}

function publicMessageOf(e: Pick<KeptAuditEvent, 'stage' | 'code'>): string | null {
  if (e.code === null) return null;
  const codes: Readonly<Record<string, CodeSpec>> = REJECTION_CODES[e.stage];
  return Object.hasOwn(codes, e.code) ? codes[e.code]!.publicMessage : null;
}

/** Drops the oldest entries (by `order`) beyond `limit`. */
function trim<T>(map: Map<string, T>, limit: number, order: (a: T, b: T) => number): void {
  if (map.size <= limit) return;
  const oldest = [...map].sort(([, a], [, b]) => order(a, b)).slice(0, map.size - limit);
  for (const [key] of oldest) map.delete(key);
}

function sorted<T>(map: ReadonlyMap<string, T>, time: (value: T) => number): T[] {
  return [...map.values()].sort((a, b) => time(a) - time(b));
}
