/**
 * Where the analytics service's results go besides Kafka: its Prometheus series and the live view
 * (the HTTP API and its stream), both fed from what each transaction committed and, every tick,
 * from the windows still open.
 */
import type { AnalyticsHub, AnalyticsMetrics } from '@toolgate/platform';
import { WINDOW_SIZES, type WindowCounts, type WindowSize } from '@toolgate/shared';
import type { Committed } from './handle-audit-batch.js';
import { WindowBoard } from './window-board.js';

/** The hooks a running service calls, and the refresh of the open windows. */
export interface AnalyticsOutputs {
  /** For `AnalyticsDeps.committed`. */
  readonly committed: (what: Committed) => void;
  /** For `AnalyticsDeps.observe`. */
  readonly observe: (
    what: 'late' | 'invalid' | 'window',
    partition: number,
    size?: WindowSize,
  ) => void;
  /** Publishes the open windows' counts as they are now, and the open-window gauge. */
  readonly refresh: (live: readonly WindowCounts[]) => void;
}

/** Outputs into `metrics` and `hub`; `live` gives the open windows when a window closes. */
export function analyticsOutputs(
  metrics: AnalyticsMetrics,
  hub: AnalyticsHub,
  live: () => readonly WindowCounts[],
): AnalyticsOutputs {
  const board = new WindowBoard();
  return {
    committed: (what) => {
      metrics.consumed(what.consumed);
      metrics.observeTransaction(what.seconds);
      if (what.lag !== undefined) metrics.lag(what.partition, what.lag);
      for (const final of what.windows) {
        metrics.windowClosed(final.counts.size, final.closedBy);
        // Decisions are counted once, in the minute windows (an hour counts the same events).
        if (final.counts.size === 'minute') {
          for (const d of final.counts.decisions) metrics.decisions(d as never, d.count);
        }
        hub.window(board.final(final.counts, live()));
      }
      for (const alert of what.alerts) {
        metrics.alert(alert);
        hub.alert(alert);
      }
    },
    observe: (what, _partition, size) => {
      if (what === 'late' && size !== undefined) metrics.late(size);
    },
    refresh: (open) => {
      for (const size of Object.keys(WINDOW_SIZES) as WindowSize[]) {
        metrics.openWindows(size, open.filter((c) => c.size === size).length);
      }
      for (const summary of board.live(open)) hub.window(summary);
    },
  };
}
