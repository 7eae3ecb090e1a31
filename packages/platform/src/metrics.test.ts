import { register as globalRegistry } from 'prom-client';
import { rejecterFor } from '@toolgate/shared';
import { describe, expect, it } from 'vitest';
import { createMetrics } from './metrics.js';

/** The value of one series in the exposition text, or undefined when absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('createMetrics', () => {
  it('counts messages and decisions under their documented names, labelled with the stage', async () => {
    const metrics = createMetrics('authorize', { processMetrics: false });
    metrics.messageIn('toolgate.validated');
    metrics.messageIn('toolgate.validated');
    const refusal = rejecterFor('limits')('rate_limited', undefined, 'detail');
    if (refusal.ok) throw new Error('a rejecter rejects');
    metrics.decision(refusal);
    metrics.decision({ disposition: 'execute', stage: 'authorization' });
    const text = await metrics.render();
    expect(
      sample(text, 'toolgate_messages_in_total{topic="toolgate.validated",stage="authorize"}'),
    ).toBe(2);
    expect(
      sample(
        text,
        'toolgate_decisions_total{disposition="retry",rung="limits",code="rate_limited",stage="authorize"}',
      ),
    ).toBe(1);
    expect(
      sample(
        text,
        'toolgate_decisions_total{disposition="execute",rung="authorization",code="none",stage="authorize"}',
      ),
    ).toBe(1);
  });

  it('records handling, batch and transaction times, lag and faults', async () => {
    const metrics = createMetrics('execute', { processMetrics: false });
    metrics.observeHandle(0.003);
    const seconds = metrics.startHandleTimer()();
    metrics.observeBatch(0.2);
    metrics.observeTransaction(0.05, 3, 7);
    metrics.observeTransaction(0.07, 2, 8);
    metrics.lag('toolgate.cleared', 3, 42);
    metrics.lag('toolgate.cleared', 4, 7);
    metrics.forgetLag('toolgate.cleared', 4);
    metrics.fault('redis_unavailable', true);
    const text = await metrics.render();
    expect(seconds).toBeGreaterThanOrEqual(0);
    expect(sample(text, 'toolgate_handle_seconds_count{stage="execute"}')).toBe(2);
    expect(sample(text, 'toolgate_handle_seconds_bucket{le="0.005",stage="execute"}')).toBe(2);
    expect(sample(text, 'toolgate_batch_seconds_sum{stage="execute"}')).toBe(0.2);
    expect(sample(text, 'toolgate_transaction_seconds_count{stage="execute"}')).toBe(2);
    expect(sample(text, 'toolgate_transaction_chunks_total{stage="execute"}')).toBe(5);
    expect(sample(text, 'toolgate_transaction_partitions_total{stage="execute"}')).toBe(15);
    expect(
      sample(text, 'toolgate_consumer_lag{topic="toolgate.cleared",partition="3",stage="execute"}'),
    ).toBe(42);
    expect(text).not.toContain('partition="4"');
    expect(
      sample(
        text,
        'toolgate_faults_total{code="redis_unavailable",retriable="true",stage="execute"}',
      ),
    ).toBe(1);
  });

  it('records the wait for each Redis call by operation and result', async () => {
    const metrics = createMetrics('authorize', { processMetrics: false });
    metrics.observeStore('count_call', 0.0004, true);
    metrics.observeStore('count_call', 0.003, true);
    metrics.observeStore('load_object', 2, false);
    const text = await metrics.render();
    const labels = (op: string, result: string) =>
      `stage="authorize",op="${op}",result="${result}"`;
    const ok = labels('count_call', 'ok');
    expect(sample(text, `toolgate_store_seconds_count{${ok}}`)).toBe(2);
    expect(sample(text, `toolgate_store_seconds_bucket{le="0.0005",${ok}}`)).toBe(1);
    expect(sample(text, `toolgate_store_seconds_sum{${ok}}`)).toBeCloseTo(0.0034);
    const fault = labels('load_object', 'fault');
    expect(sample(text, `toolgate_store_seconds_count{${fault}}`)).toBe(1);
  });

  it('says whether a topic is consumed only once someone looked', async () => {
    const metrics = createMetrics('execute', { processMetrics: false });
    const series = 'toolgate_topic_consumed{group="g",topic="toolgate.results",stage="execute"}';
    expect(await metrics.render()).not.toContain('toolgate_topic_consumed{');
    metrics.topicConsumed('g', 'toolgate.results', false);
    expect(sample(await metrics.render(), series)).toBe(0);
    metrics.topicConsumed('g', 'toolgate.results', true);
    expect(sample(await metrics.render(), series)).toBe(1);
  });

  it('gives every call its own registry and leaves the global one alone', async () => {
    const a = createMetrics('validate', { processMetrics: false });
    const b = createMetrics('validate', { processMetrics: false });
    a.messageIn('toolgate.proposals');
    const inB = await b.render();
    expect(
      sample(inB, 'toolgate_messages_in_total{topic="toolgate.proposals",stage="validate"}'),
    ).toBe(undefined);
    expect(globalRegistry.getSingleMetric('toolgate_messages_in_total')).toBeUndefined();
  });

  it('includes process metrics unless asked not to', async () => {
    const text = await createMetrics('confirm').render();
    expect(text).toContain('process_cpu_user_seconds_total{stage="confirm"}');
    expect(createMetrics('confirm').contentType).toContain('text/plain');
  });
});
