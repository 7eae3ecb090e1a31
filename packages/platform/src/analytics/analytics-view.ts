/**
 * What the analytics HTTP API and stream read: a read-only view of the current and recent windows
 * and alerts, which the analytics service keeps and this package only serves.
 */
import type { Alert, AnyCode, Disposition, Rung, WindowSize } from '@toolgate/shared';

/** One row of a window's counts: decisions with these values. */
export interface WindowRow {
  /** null for events without one (an unauthenticated proposal). */
  readonly tenant: string | null;
  /** null for events without one. */
  readonly tool: string | null;
  readonly rung: Rung;
  /** null for an acceptance. */
  readonly code: AnyCode | null;
  readonly disposition: Disposition | null;
  readonly count: number;
}

/** Refusals counted for one principal (its subject) or one run, within a window. */
export interface RefusalCount {
  readonly id: string;
  /** The tenant of the principal or run; null when unknown. */
  readonly tenant: string | null;
  readonly refusals: number;
}

/** One tumbling window's counts. */
export interface WindowSummary {
  /** Event-time start, inclusive (ISO-8601). */
  readonly start: string;
  /** Event-time end, exclusive (ISO-8601). */
  readonly end: string;
  readonly size: WindowSize;
  /** `live` while the window is open (counts may still grow), `final` once emitted. */
  readonly state: 'live' | 'final';
  readonly rows: readonly WindowRow[];
  /** Events for this window that arrived after it had closed (counted, never in `rows`). */
  readonly late: number;
  /** The most refused principals, most refusals first. */
  readonly topRefusedPrincipals: readonly RefusalCount[];
  /** The most refused runs, most refusals first. */
  readonly topRefusedRuns: readonly RefusalCount[];
}

/** A change the stream carries: a window's counts as they are now, or a new alert. */
export type AnalyticsUpdate =
  | { readonly kind: 'window'; readonly window: WindowSummary }
  | { readonly kind: 'alert'; readonly alert: Alert };

/** Which windows or alerts a read asks for. */
export interface AnalyticsQuery {
  /** Only windows that end after it, or alerts raised at or after it; default: all kept. */
  readonly since?: Date;
}

/** The read-only view the analytics service gives its HTTP API. */
export interface AnalyticsView {
  /** Windows of `size` (live and final ones kept), oldest first. */
  windows(
    size: WindowSize,
    query: AnalyticsQuery,
  ): readonly WindowSummary[] | Promise<readonly WindowSummary[]>;
  /** Alerts kept, oldest first. */
  alerts(query: AnalyticsQuery): readonly Alert[] | Promise<readonly Alert[]>;
  /** Calls `listener` on every update until the returned function is called. */
  subscribe(listener: (update: AnalyticsUpdate) => void): () => void;
}
