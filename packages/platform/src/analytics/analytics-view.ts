/**
 * What the analytics HTTP API and stream read: a read-only view of the current and recent windows
 * and alerts, which the analytics service keeps and this package only serves.
 */
import type {
  Alert,
  AnyCode,
  ApprovalTally,
  Disposition,
  Rung,
  WindowSize,
} from '@toolgate/shared';

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
  /**
   * The kept audit events of the window `query` names that match its values, newest first, with
   * `internalDetail`; of `tenant` alone when given, every tenant's when undefined.
   */
  events(
    query: AuditEventQuery,
    tenant: string | undefined,
  ): AuditEventPage | Promise<AuditEventPage>;
  /** Approval health over `span`; of `tenant` alone when given, every tenant's when undefined. */
  approvals(
    span: ApprovalSpan,
    tenant: string | undefined,
  ): ApprovalHealth | Promise<ApprovalHealth>;
}

/** The span an approval health read asks for. */
export interface ApprovalSpan {
  readonly since: Date;
  readonly until: Date;
}

/**
 * One audit event behind a count, as the drill-down shows it. Operators get `internalDetail`;
 * everyone else gets the refusal's public message only.
 */
export interface AuditEventView {
  readonly eventId: string;
  readonly at: string;
  readonly kind: string;
  readonly tenant: string | null;
  readonly tool: string | null;
  readonly rung: Rung;
  readonly code: AnyCode | null;
  readonly disposition: Disposition | null;
  readonly subject: string | null;
  readonly runId: string | null;
  readonly proposalId: string | null;
  readonly confirmationId: string | null;
  /** What the agent was told (the code's public message); null for an acceptance. */
  readonly publicMessage: string | null;
  /** Operators only. */
  readonly internalDetail?: string;
}

/** Which events a drill-down asks for: the window and any of the row's values. */
export interface AuditEventQuery {
  readonly size: WindowSize;
  /** The window's start (ISO-8601), as a {@link WindowSummary} names it. */
  readonly start: string;
  readonly tenant?: string;
  readonly tool?: string;
  readonly rung?: Rung;
  readonly code?: AnyCode;
  readonly disposition?: Disposition;
  readonly subject?: string;
  readonly runId?: string;
  /** At most this many, newest first (default 50, at most 200). */
  readonly limit?: number;
}

/** The events behind a count, newest first; `complete` is false when some were not kept. */
export interface AuditEventPage {
  readonly events: readonly AuditEventView[];
  /**
   * False when some of the window's events may not be here: the window is older than the events
   * kept, the cap dropped some, or an audit partition was taken over after it began or given away.
   * It says nothing of `limit`: a full page of a complete window is cut at `limit`.
   */
  readonly complete: boolean;
}

/** Approval health over a span: what became of confirmations and how long people took. */
export interface ApprovalHealth extends ApprovalTally {
  /** ISO-8601 start and end of the span measured. */
  readonly since: string;
  readonly until: string;
}
