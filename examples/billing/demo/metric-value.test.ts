import { describe, expect, it } from 'vitest';
import { metricValue } from './metric-value.js';

const PAGE = [
  '# HELP toolgate_refused_forgeries_total Messages that did not prove their origin.',
  '# TYPE toolgate_refused_forgeries_total counter',
  'toolgate_refused_forgeries_total{message="command",reason="no_proof",stage="tool-worker"} 2',
  'toolgate_refused_forgeries_total{message="command",reason="bad_proof",stage="tool-worker"} 3',
  'toolgate_refused_forgeries_total{message="result",reason="bad_proof",stage="tool-worker"} 7',
  'toolgate_faults_total{code="x",retriable="true",stage="tool-worker"} 11',
].join('\n');

describe('metricValue', () => {
  it('sums the samples of a metric whose labels include the ones asked for', () => {
    const forgeries = 'toolgate_refused_forgeries_total';
    expect(metricValue(PAGE, forgeries, { message: 'command', reason: 'no_proof' })).toBe(2);
    expect(metricValue(PAGE, forgeries, { message: 'command' })).toBe(5);
    expect(metricValue(PAGE, forgeries, { reason: 'bad_proof' })).toBe(10);
  });

  it('is 0 for a metric or labels the page does not have', () => {
    expect(metricValue(PAGE, 'toolgate_refused_forgeries', {})).toBe(0);
    expect(metricValue(PAGE, 'toolgate_faults_total', { code: 'y' })).toBe(0);
    expect(metricValue('', 'toolgate_faults_total', {})).toBe(0);
  });
});
