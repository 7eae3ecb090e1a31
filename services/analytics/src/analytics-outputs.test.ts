import {
  createAnalyticsHub,
  createAnalyticsMetrics,
  type AnalyticsUpdate,
} from '@toolgate/platform';
import { auditEvent, rejecterFor, type WindowCounts } from '@toolgate/shared';
import { describe, expect, it } from 'vitest';
import { signal, within } from '../../../test/support/deadline.js';
import { analyticsOutputs, LIVE_PUSH_MIN_MS } from './analytics-outputs.js';
import type { Committed } from './handle-audit-batch.js';

const START = Date.now() - (Date.now() % 60_000);

const open: WindowCounts = {
  size: 'minute',
  startMs: START,
  endMs: START + 60_000,
  partition: 0,
  events: 1,
  refusals: 1,
  late: 0,
  invalid: 0,
  decisions: [
    {
      tenant: 'acme',
      tool: 'search',
      rung: 'authorization',
      code: 'not_authorized',
      disposition: 'deny',
      refusal: true,
      count: 1,
    },
  ],
  principals: [],
  runs: [],
};

const refusal = auditEvent(
  {
    kind: 'rejected',
    rejected: rejecterFor('authorization')('not_authorized', undefined, 'denied'),
    tenant: 'acme',
    tool: 'search',
    proposalId: 'p1',
  },
  new Date(START),
);

const committed = (events: Committed['events']): Committed => ({
  partition: 0,
  windows: [],
  alerts: [],
  events,
  consumed: events.length,
  seconds: 0.01,
});

describe('analyticsOutputs', () => {
  it('publishes the open windows as soon as a transaction committed new events, not at the next tick', async () => {
    const hub = createAnalyticsHub();
    const updates: AnalyticsUpdate[] = [];
    const second = signal();
    hub.subscribe((u) => {
      updates.push(u);
      if (updates.length === 2) second.resolve();
    });
    const outputs = analyticsOutputs(createAnalyticsMetrics(), hub, () => [open]);
    outputs.holding.held(0, START);
    outputs.committed(committed([]));
    expect(updates).toEqual([]);
    outputs.committed(committed([refusal]));
    expect(updates.map((u) => u.kind === 'window' && u.window.state)).toEqual(['live']);
    expect(
      hub.events({ size: 'minute', start: new Date(START).toISOString() }, 'acme').events,
    ).toHaveLength(1);
    // A second commit within the least interval is published once that interval has passed.
    outputs.committed(committed([refusal]));
    expect(updates).toHaveLength(1);
    await within(10 * LIVE_PUSH_MIN_MS, 'the second commit to be published', second.promise);
    expect(updates).toHaveLength(2);
    outputs.stop();
  });
});
