import { describe, expect, it } from 'vitest';
import { latencyChart } from './latency-chart.js';
import { summarizeSystem, type RunRecord } from './summarize.js';

const open = (system: 'relay' | 'gate', fraction: number, p50: number): RunRecord => ({
  system,
  phase: 'open',
  fraction,
  offeredPerSec: fraction * 400,
  rep: 0,
  sent: 10,
  completed: 10,
  lost: 0,
  throughput: 10,
  latency: { count: 10, p50, p99: p50 * 5, p999: p50 * 6, max: p50 * 7 },
  latencyUnattended: { count: 10, p50, p99: p50 * 5, p999: p50 * 6, max: p50 * 7 },
  costs: [],
});

describe('latencyChart', () => {
  it('draws a solid p50 and a dashed p99 line per system with a legend', () => {
    const svg = latencyChart(
      {
        relay: summarizeSystem([open('relay', 0.25, 8), open('relay', 0.5, 9)]),
        gate: summarizeSystem([open('gate', 0.25, 12), open('gate', 0.5, 20)]),
      },
      'Latency <quick>',
    );
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(svg.trimEnd().endsWith('</svg>')).toBe(true);
    expect(svg.match(/<polyline /g)).toHaveLength(4);
    expect(svg.match(/stroke-dasharray/g)?.length).toBe(4); // two p99 lines and their legend keys
    expect(svg).toContain('gate p99');
    expect(svg).toContain('Latency &lt;quick&gt;');
    expect(svg).toContain('>1 ms<');
    expect(svg).toContain('>100 ms<');
  });

  it('says there is nothing to draw without open-loop runs', () => {
    expect(latencyChart({}, 'empty')).toContain('no open-loop runs to draw');
  });
});
