import { describe, expect, it } from 'vitest';
import { ANALYTICS_SERIES, createAnalyticsMetrics } from './analytics-metrics.js';

const refusal = {
  tenant: 'acme',
  tool: 'pay_invoice',
  rung: 'authorization',
  code: 'not_authorized',
  disposition: 'deny',
} as const;

/** The value of the one sample of `name` whose labels include `labels`, or undefined. */
async function sample(
  metrics: ReturnType<typeof createAnalyticsMetrics>,
  name: string,
  labels: Record<string, string> = {},
) {
  const metric = await metrics.registry.getSingleMetric(name)?.get();
  const found = metric?.values.filter((v) =>
    Object.entries(labels).every(([k, want]) => String(v.labels[k]) === want),
  );
  return found?.reduce((sum, v) => sum + v.value, 0);
}

describe('createAnalyticsMetrics', () => {
  it('counts decisions by tenant, tool, rung, code and disposition, none for absent values', async () => {
    const metrics = createAnalyticsMetrics();
    metrics.decisions(refusal, 3);
    metrics.decisions({ ...refusal, tenant: null, tool: null, code: null, disposition: null });
    const text = await metrics.render();
    expect(text).toContain(
      'toolgate_analytics_decisions_total{tenant="acme",tool="pay_invoice",rung="authorization",code="not_authorized",disposition="deny",stage="analytics"} 3',
    );
    expect(text).toContain(
      'toolgate_analytics_decisions_total{tenant="none",tool="none",rung="authorization",code="none",disposition="none",stage="analytics"} 1',
    );
  });

  it('keeps at most topN + 1 tenant and tool values in the series under 10,000 tenants', async () => {
    const metrics = createAnalyticsMetrics({ topN: 5 });
    for (let i = 0; i < 10_000; i += 1) {
      metrics.decisions({ ...refusal, tenant: `t-${i}`, tool: `tool-${i % 50}` });
    }
    const metric = await metrics.registry.getSingleMetric(ANALYTICS_SERIES.decisions)?.get();
    const tenants = new Set(metric?.values.map((v) => v.labels['tenant']));
    const tools = new Set(metric?.values.map((v) => v.labels['tool']));
    expect(tenants.size).toBeLessThanOrEqual(6);
    expect(tools.size).toBeLessThanOrEqual(6);
    expect(tenants.has('other')).toBe(true);
    expect(await sample(metrics, ANALYTICS_SERIES.decisions)).toBe(10_000);
    expect(await sample(metrics, ANALYTICS_SERIES.decisions, { tenant: 'other' })).toBe(9_995);
    expect(await sample(metrics, ANALYTICS_SERIES.labelsFolded, { label: 'tenant' })).toBe(9_995);
  });

  it('removes the series of a tenant a far busier one displaced', async () => {
    const metrics = createAnalyticsMetrics({ topN: 1 });
    metrics.decisions({ ...refusal, tenant: 'quiet' });
    metrics.decisions({ ...refusal, tenant: 'busy' }, 10);
    expect(await sample(metrics, ANALYTICS_SERIES.decisions, { tenant: 'quiet' })).toBe(0);
    expect(await sample(metrics, ANALYTICS_SERIES.decisions, { tenant: 'busy' })).toBe(10);
    expect(await sample(metrics, ANALYTICS_SERIES.labelEvictions, { label: 'tenant' })).toBe(1);
  });

  it('counts late events, closed windows, alerts, consumption, open windows, lag and transactions', async () => {
    const metrics = createAnalyticsMetrics();
    metrics.late('minute', 2);
    metrics.windowClosed('hour', 'idle');
    metrics.alert({ rule: 'authorization_probing', mode: 'log' });
    metrics.consumed(7);
    metrics.openWindows('minute', 4);
    metrics.lag(3, 12);
    metrics.lag(4, 1);
    metrics.forgetLag(4);
    metrics.observeTransaction(0.02);
    expect(await sample(metrics, ANALYTICS_SERIES.lateEvents, { size: 'minute' })).toBe(2);
    expect(
      await sample(metrics, ANALYTICS_SERIES.windowsClosed, { size: 'hour', reason: 'idle' }),
    ).toBe(1);
    expect(
      await sample(metrics, ANALYTICS_SERIES.alerts, {
        rule: 'authorization_probing',
        mode: 'log',
      }),
    ).toBe(1);
    expect(await sample(metrics, ANALYTICS_SERIES.eventsConsumed)).toBe(7);
    expect(await sample(metrics, ANALYTICS_SERIES.openWindows, { size: 'minute' })).toBe(4);
    expect(await sample(metrics, ANALYTICS_SERIES.consumerLag)).toBe(12);
    expect(await metrics.render()).toContain(
      'toolgate_analytics_transaction_seconds_count{stage="analytics"} 1',
    );
  });

  it('names every series it documents', async () => {
    const metrics = createAnalyticsMetrics();
    const names = (await metrics.registry.getMetricsAsJSON()).map((m) => m.name).sort();
    expect(names).toEqual(Object.values(ANALYTICS_SERIES).sort());
  });
});
