/**
 * Where the analytics service's results go besides Kafka: its Prometheus series and the live view
 * (the HTTP API and its stream), both fed from what each transaction committed and, every tick,
 * from the windows still open. The open windows are also published as soon as a transaction has
 * committed new events (at most every {@link LIVE_PUSH_MIN_MS}), so a refusal reaches the stream
 * in the time of a fetch and a transaction, not of a tick.
 */
import type { AnalyticsHub, AnalyticsMetrics } from '@toolgate/platform';
import { WINDOW_SIZES, type WindowCounts, type WindowSize } from '@toolgate/shared';
import type { Committed } from './handle-audit-batch.js';
import type { AnalyticsDeps } from './service.js';
import { WindowBoard } from './window-board.js';

/**
 * The least time between two publications of the open windows after commits, ms: under load they
 * go out at most this often, and a commit within it is published when it has passed.
 */
export const LIVE_PUSH_MIN_MS = 200;

/** The hooks a running service calls, and the refresh of the open windows. */
export interface AnalyticsOutputs {
  /** For `AnalyticsDeps.committed`. */
  readonly committed: (what: Committed) => void;
  /** For `AnalyticsDeps.holding`. */
  readonly holding: NonNullable<AnalyticsDeps['holding']>;
  /** For `AnalyticsDeps.observe`. */
  readonly observe: (
    what: 'late' | 'invalid' | 'window',
    partition: number,
    size?: WindowSize,
  ) => void;
  /** Publishes the open windows' counts as they are now, and the open-window gauge. */
  readonly refresh: (live: readonly WindowCounts[]) => void;
  /** Cancels a publication of the open windows still waiting. */
  readonly stop: () => void;
}

/** Outputs into `metrics` and `hub`; `live` gives the open windows when a window closes. */
export function analyticsOutputs(
  metrics: AnalyticsMetrics,
  hub: AnalyticsHub,
  live: () => readonly WindowCounts[],
): AnalyticsOutputs {
  const board = new WindowBoard();
  let lastPushMs = -Infinity;
  let waiting: NodeJS.Timeout | undefined;
  const push = (open: readonly WindowCounts[]) => {
    lastPushMs = Date.now();
    clearTimeout(waiting);
    waiting = undefined;
    for (const summary of board.live(open)) hub.window(summary);
  };
  const pushSoon = () => {
    if (waiting !== undefined) return;
    const wait = lastPushMs + LIVE_PUSH_MIN_MS - Date.now();
    if (wait <= 0) push(live());
    else waiting = setTimeout(() => push(live()), wait).unref();
  };
  return {
    committed: (what) => {
      metrics.consumed(what.consumed);
      metrics.observeTransaction(what.seconds);
      if (what.lag !== undefined) metrics.lag(what.partition, what.lag);
      hub.audited(what.partition, what.events);
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
      if (what.events.length > 0) pushSoon();
    },
    holding: { held: (p, sinceMs) => hub.held(p, sinceMs), released: (p) => hub.released(p) },
    observe: (what, _partition, size) => {
      if (what === 'late' && size !== undefined) metrics.late(size);
    },
    refresh: (open) => {
      for (const size of Object.keys(WINDOW_SIZES) as WindowSize[]) {
        metrics.openWindows(size, open.filter((c) => c.size === size).length);
      }
      push(open);
    },
    stop: () => clearTimeout(waiting),
  };
}
