/**
 * An in-memory {@link AnalyticsView} the analytics service feeds: it keeps the recent windows of
 * each size and the recent alerts, bounded, and passes every change to the subscribed streams.
 */
import { WINDOW_SIZES, type Alert, type WindowSize } from '@toolgate/shared';
import type {
  AnalyticsQuery,
  AnalyticsUpdate,
  AnalyticsView,
  WindowSummary,
} from './analytics-view.js';

/** Default windows kept per size: two hours of minutes, two days of hours. */
export const DEFAULT_KEPT_WINDOWS: Readonly<Record<WindowSize, number>> = { minute: 120, hour: 48 };

/** Default alerts kept. */
export const DEFAULT_KEPT_ALERTS = 1000;

/** Options of {@link createAnalyticsHub}. */
export interface AnalyticsHubOptions {
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
  };
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
