/**
 * How the analytics service closes its windows: the grace period of each window size and the idle
 * time after which a quiet partition's windows close by the clock (docs/analytics-windows.md).
 */
import type { VariableTable } from './variable-spec.js';

const MS = { minimum: 0, maximum: 86_400_000 } as const;

/** TOOLGATE_ANALYTICS_*. */
export const ANALYTICS_VARIABLES = {
  ANALYTICS_MINUTE_GRACE_MS: {
    key: 'analyticsMinuteGraceMs',
    kind: 'integer',
    default: 30_000,
    schema: MS,
    description:
      'Analytics: how long after its end a one-minute window still takes events (event time), ms; then its final counts are written once and later events count as `late`.',
  },
  ANALYTICS_HOUR_GRACE_MS: {
    key: 'analyticsHourGraceMs',
    kind: 'integer',
    default: 300_000,
    schema: MS,
    description:
      'Analytics: the grace period of one-hour windows, ms (default 5 min: an hour window can wait longer than a minute window for a stage that was restarting, at little cost).',
  },
  ANALYTICS_IDLE_MS: {
    key: 'analyticsIdleMs',
    kind: 'integer',
    default: 60_000,
    schema: { minimum: 100, maximum: 86_400_000 },
    description:
      'Analytics: an audit partition read to its end that received nothing for this long closes its windows by the clock (end plus grace passed), ms, so a quiet tenant still gets its results.',
  },
  ANALYTICS_TICK_MS: {
    key: 'analyticsTickMs',
    kind: 'integer',
    default: 1_000,
    schema: { minimum: 10, maximum: 60_000 },
    description: 'Analytics: how often the clock is checked for windows to close, ms.',
  },
  ANALYTICS_OPERATOR_TENANT: {
    key: 'analyticsOperatorTenant',
    kind: 'string',
    default: '',
    schema: { pattern: '^[A-Za-z0-9_-]{0,64}$' },
    description:
      "Analytics API: the tenant whose operators see every tenant's counts and the alerts about the gate as a whole (the installation's own). Empty: every operator sees their own tenant only.",
  },
} as const satisfies VariableTable;

/** The analytics service's default HTTP port (/healthz, /readyz, /metrics); TOOLGATE_HTTP_PORT overrides. */
export const DEFAULT_ANALYTICS_HTTP_PORT = 9105;
