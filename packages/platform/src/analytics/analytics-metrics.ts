/**
 * The analytics service's Prometheus series, on a registry of its own (as the stages' are, see
 * `metrics.ts`). Tenants and tools are labels bounded to the busiest few ({@link createTopLabels});
 * principals and runs are never labels: they stay in the topics.
 */
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Alert, AnyCode, Disposition, Rung, WindowSize } from '@toolgate/shared';
import { BATCH_BUCKETS } from '../metrics.js';
import { createTopLabels, NONE_LABEL, type TopLabels } from './top-labels.js';

/** Why a window closed: its watermark passed its end and grace, or the clock did after idling. */
export const WINDOW_CLOSE_REASONS = ['watermark', 'idle'] as const;

/** A {@link WINDOW_CLOSE_REASONS} value. */
export type WindowCloseReason = (typeof WINDOW_CLOSE_REASONS)[number];

/** Every series name of {@link createAnalyticsMetrics}: a contract with the rules and dashboard. */
export const ANALYTICS_SERIES = {
  decisions: 'toolgate_analytics_decisions_total',
  lateEvents: 'toolgate_analytics_late_events_total',
  windowsClosed: 'toolgate_analytics_windows_closed_total',
  alerts: 'toolgate_analytics_alerts_total',
  eventsConsumed: 'toolgate_analytics_events_consumed_total',
  openWindows: 'toolgate_analytics_open_windows',
  consumerLag: 'toolgate_analytics_consumer_lag',
  transactionSeconds: 'toolgate_analytics_transaction_seconds',
  labelsFolded: 'toolgate_analytics_labels_folded_total',
  labelEvictions: 'toolgate_analytics_label_evictions_total',
} as const;

/** One count of decisions as the analytics service sees it (an audit event's fields fit). */
export interface DecisionCount {
  /** null when the event had none (an unauthenticated proposal): counted as `none`. */
  readonly tenant: string | null;
  /** null when the event had none: counted as `none`. */
  readonly tool: string | null;
  /** The rung that decided (the audit event's `stage`). */
  readonly rung: Rung;
  /** null for an acceptance: counted as `none`. */
  readonly code: AnyCode | null;
  /** null when the event had none: counted as `none`. */
  readonly disposition: Disposition | null;
}

/** Options of {@link createAnalyticsMetrics}. */
export interface AnalyticsMetricsOptions {
  /** Tenants and tools kept as labels each, the busiest by volume; default 20. */
  readonly topN?: number;
  /** Value of the `stage` label every series carries; default `analytics`. */
  readonly stage?: string;
}

/** The analytics service's metrics. */
export interface AnalyticsMetrics {
  /** The registry, for the HTTP endpoint, `Registry.merge` with the stage's, or tests. */
  readonly registry: Registry;
  /** `Content-Type` of {@link AnalyticsMetrics.render}. */
  readonly contentType: string;
  /** The Prometheus text exposition of every series. */
  render(): Promise<string>;
  /**
   * `toolgate_analytics_decisions_total{tenant,tool,rung,code,disposition}`: `count` (default 1)
   * decisions, per event or per closed window's row. Tenants and tools outside the top N are
   * counted as `other`; a value displaced from the top N has its series removed.
   */
  decisions(labels: DecisionCount, count?: number): void;
  /** `toolgate_analytics_late_events_total{size}`: `count` (default 1) events after the grace. */
  late(size: WindowSize, count?: number): void;
  /** `toolgate_analytics_windows_closed_total{size,reason}`: one window emitted its final counts. */
  windowClosed(size: WindowSize, reason: WindowCloseReason): void;
  /** `toolgate_analytics_alerts_total{rule,mode}`: one alert raised (`mode` alert or log). */
  alert(alert: Pick<Alert, 'rule' | 'mode'>): void;
  /** `toolgate_analytics_events_consumed_total`: `count` (default 1) audit events read. */
  consumed(count?: number): void;
  /** `toolgate_analytics_open_windows{size}`: windows of `size` open now. */
  openWindows(size: WindowSize, open: number): void;
  /** `toolgate_analytics_consumer_lag{partition}`: audit events behind the partition's end. */
  lag(partition: number, lag: number): void;
  /** Drops a partition's lag: another member of the group owns it now. */
  forgetLag(partition: number): void;
  /** `toolgate_analytics_transaction_seconds`: one transaction took `seconds`, begin to commit. */
  observeTransaction(seconds: number): void;
}

type DecisionLabel = 'tenant' | 'tool' | 'rung' | 'code' | 'disposition';

/** A fresh registry with the {@link ANALYTICS_SERIES}. */
export function createAnalyticsMetrics(options: AnalyticsMetricsOptions = {}): AnalyticsMetrics {
  const registry = new Registry();
  registry.setDefaultLabels({ stage: options.stage ?? 'analytics' });
  const registers = [registry];
  const s = seriesOf(registers);
  const decisions = boundedDecisions(s, options.topN);
  return {
    registry,
    contentType: registry.contentType,
    render: () => registry.metrics(),
    decisions,
    late: (size, count = 1) => s.late.inc({ size }, count),
    windowClosed: (size, reason) => s.windowsClosed.inc({ size, reason }),
    alert: ({ rule, mode }) => s.alerts.inc({ rule, mode }),
    consumed: (count = 1) => s.consumed.inc(count),
    openWindows: (size, open) => s.openWindows.set({ size }, open),
    lag: (partition, value) => s.lag.set({ partition: String(partition) }, value),
    forgetLag: (partition) => s.lag.remove({ partition: String(partition) }),
    observeTransaction: (seconds) => s.transaction.observe(seconds),
  };
}

/** The decisions counter behind the tenant and tool bounds, removing displaced values' series. */
function boundedDecisions(s: ReturnType<typeof seriesOf>, topN: number | undefined) {
  const bounds: Record<'tenant' | 'tool', TopLabels> = {
    tenant: createTopLabels(topN === undefined ? {} : { limit: topN }),
    tool: createTopLabels(topN === undefined ? {} : { limit: topN }),
  };
  // The label sets the counter holds, so a displaced value's series can all be removed.
  const live = new Map<string, Record<DecisionLabel, string>>();
  const bounded = (which: 'tenant' | 'tool', value: string | null, count: number) => {
    if (value === null) return NONE_LABEL;
    const { label, evicted } = bounds[which].observe(value, count);
    if (label !== value) s.folded.inc({ label: which }, count);
    if (evicted !== undefined) {
      s.evictions.inc({ label: which });
      for (const [key, labels] of live) {
        if (labels[which] !== evicted) continue;
        s.decisions.remove(labels);
        live.delete(key);
      }
    }
    return label;
  };
  return (d: DecisionCount, count = 1) => {
    const labels = {
      tenant: bounded('tenant', d.tenant, count),
      tool: bounded('tool', d.tool, count),
      rung: d.rung,
      code: d.code ?? NONE_LABEL,
      disposition: d.disposition ?? NONE_LABEL,
    };
    live.set(JSON.stringify(labels), labels);
    s.decisions.inc(labels, count);
  };
}

function seriesOf(registers: Registry[]) {
  return {
    decisions: new Counter({
      name: ANALYTICS_SERIES.decisions,
      help: 'Decisions read from the audit topic, by tenant and tool (top N, else other), rung, code (none = accepted) and disposition.',
      labelNames: ['tenant', 'tool', 'rung', 'code', 'disposition'] as const,
      registers,
    }),
    late: new Counter({
      name: ANALYTICS_SERIES.lateEvents,
      help: 'Audit events that arrived after their window and its grace had closed, by window size.',
      labelNames: ['size'] as const,
      registers,
    }),
    windowsClosed: new Counter({
      name: ANALYTICS_SERIES.windowsClosed,
      help: 'Windows that emitted their final counts, by size and why they closed (watermark or idle).',
      labelNames: ['size', 'reason'] as const,
      registers,
    }),
    alerts: new Counter({
      name: ANALYTICS_SERIES.alerts,
      help: 'Alerts raised, by rule and mode (alert, or log for a log-only rule).',
      labelNames: ['rule', 'mode'] as const,
      registers,
    }),
    consumed: new Counter({
      name: ANALYTICS_SERIES.eventsConsumed,
      help: 'Audit events consumed.',
      registers,
    }),
    openWindows: new Gauge({
      name: ANALYTICS_SERIES.openWindows,
      help: 'Windows open now (not yet final), by size.',
      labelNames: ['size'] as const,
      registers,
    }),
    lag: new Gauge({
      name: ANALYTICS_SERIES.consumerLag,
      help: 'Audit events between the committed position and the end of the partition.',
      labelNames: ['partition'] as const,
      registers,
    }),
    transaction: new Histogram({
      name: ANALYTICS_SERIES.transactionSeconds,
      help: 'Time from beginning a Kafka transaction (final counts, alerts, offsets) to its commit, in seconds.',
      buckets: [...BATCH_BUCKETS],
      registers,
    }),
    folded: new Counter({
      name: ANALYTICS_SERIES.labelsFolded,
      help: 'Decisions counted under tenant or tool "other" because their value is not among the top N.',
      labelNames: ['label'] as const,
      registers,
    }),
    evictions: new Counter({
      name: ANALYTICS_SERIES.labelEvictions,
      help: 'Tenant or tool values displaced from the top N by a busier one (their series removed).',
      labelNames: ['label'] as const,
      registers,
    }),
  };
}
