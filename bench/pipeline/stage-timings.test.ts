import { describe, expect, it } from 'vitest';
import {
  addDifference,
  formatStageTimings,
  parseStageCounters,
  timingOf,
} from './stage-timings.js';

/** Prometheus text as a stage serves it, with a default label on every series. */
function exposition(
  handle: [number, number],
  batch: [number, number],
  tx: [number, number, number?],
  store: [number, number] = [0, 0],
  eventLoopP99 = 0.01,
) {
  return [
    '# HELP toolgate_handle_seconds Time to handle one message, in seconds.',
    '# TYPE toolgate_handle_seconds histogram',
    'toolgate_handle_seconds_bucket{le="0.005",stage="execute"} 3',
    `toolgate_handle_seconds_sum{stage="execute"} ${handle[0]}`,
    `toolgate_handle_seconds_count{stage="execute"} ${handle[1]}`,
    `toolgate_batch_seconds_sum{stage="execute"} ${batch[0]}`,
    `toolgate_batch_seconds_count{stage="execute"} ${batch[1]}`,
    `toolgate_transaction_seconds_sum ${tx[0]}`,
    `toolgate_transaction_seconds_count ${tx[1]}`,
    `toolgate_transaction_partitions_total ${tx[2] ?? 0}`,
    'toolgate_messages_in_total{topic="a"} 99',
    `toolgate_store_seconds_sum{stage="execute",op="claim",result="ok"} ${store[0] / 2}`,
    `toolgate_store_seconds_count{stage="execute",op="claim",result="ok"} ${store[1] / 2}`,
    `toolgate_store_seconds_sum{stage="execute",op="count_call",result="fault"} ${store[0] / 2}`,
    `toolgate_store_seconds_count{stage="execute",op="count_call",result="fault"} ${store[1] / 2}`,
    `nodejs_eventloop_lag_p99_seconds{stage="execute"} ${eventLoopP99}`,
    'nodejs_eventloop_lag_p90_seconds{stage="execute"} 7',
  ].join('\n');
}

describe('stage timings', () => {
  it('reads the loop counters, with or without labels, and nothing else', () => {
    const c = parseStageCounters(exposition([1.5, 10], [2, 4], [0.5, 2, 17], [0.06, 12], 0.045));
    expect(c).toEqual({
      toolgate_handle_seconds_sum: 1.5,
      toolgate_handle_seconds_count: 10,
      toolgate_batch_seconds_sum: 2,
      toolgate_batch_seconds_count: 4,
      toolgate_transaction_seconds_sum: 0.5,
      toolgate_transaction_seconds_count: 2,
      toolgate_transaction_partitions_total: 17,
      toolgate_store_seconds_sum: 0.06,
      toolgate_store_seconds_count: 12,
      nodejs_eventloop_lag_p99_seconds: 0.045,
    });
    expect(parseStageCounters('')).toMatchObject({ toolgate_handle_seconds_count: 0 });
  });

  it('sums over label sets', () => {
    const text =
      'toolgate_handle_seconds_count{topic="a"} 2\ntoolgate_handle_seconds_count{topic="b"} 3';
    expect(parseStageCounters(text).toolgate_handle_seconds_count).toBe(5);
  });

  it('averages what moved between scrapes, over several runs', () => {
    const start = parseStageCounters(exposition([1, 10], [1, 5], [1, 5, 40]));
    const mid = parseStageCounters(exposition([1.03, 20], [1.1, 7], [1.02, 6, 47]));
    const end = parseStageCounters(exposition([1.1, 30], [1.3, 9], [1.05, 7, 57]));
    const moved = addDifference(addDifference(undefined, start, mid), mid, end);
    const t = timingOf(moved);
    expect(t.messages).toBe(20);
    expect(t.handleMs).toBeCloseTo(5, 6);
    expect(t.chunkMs).toBeCloseTo(75, 6);
    expect(t.transactionMs).toBeCloseTo(25, 6);
    expect(t.messagesPerTransaction).toBe(10);
    expect(t.partitionsPerTransaction).toBe(8.5);
    expect(t.storeCallsPerMessage).toBe(0);
    expect(t.storeMs).toBeNaN();
  });

  it('averages the Redis calls per message, and keeps the largest event-loop p99 of the runs', () => {
    const start = parseStageCounters(exposition([1, 10], [1, 5], [1, 5], [0.5, 100], 0.012));
    const mid = parseStageCounters(exposition([1.1, 20], [1.1, 7], [1.1, 6], [0.53, 110], 0.08));
    const end = parseStageCounters(exposition([1.2, 30], [1.2, 9], [1.2, 7], [0.55, 130], 0.03));
    const t = timingOf(addDifference(addDifference(undefined, start, mid), mid, end));
    expect(t.storeCallsPerMessage).toBe(1.5);
    expect(t.storeMs).toBeCloseTo(50 / 30, 6);
    expect(t.eventLoopP99Ms).toBeCloseTo(80, 6);
  });

  it('shows a stage that did nothing with dashes, not zeros', () => {
    const none = parseStageCounters('');
    const t = timingOf(addDifference(undefined, none, none));
    expect(formatStageTimings({ '25': { execute: t } })).toEqual([
      'stage loop at 25 %, gate-execute: 0 messages, – ms each; chunk – ms; transaction – ms, – messages to – partitions each; ' +
        'Redis – calls a message, – ms each; event loop delay p99 up to – ms',
    ]);
  });
});
