import { describe, expect, it } from 'vitest';
import { parseAnalyticsOptions } from './analytics-options.js';
import {
  formatPhases,
  seriesTotal,
  summarizePhase,
  type LagSample,
  type PhaseFacts,
} from './summarize.js';

const T0 = 1_000_000;

/** 10 s of load at 100 events/s, sampled every 500 ms; analytics one second behind. */
function facts(after: (t: number) => LagSample | undefined = () => undefined): PhaseFacts {
  const samples: LagSample[] = [];
  for (let t = 0; t <= 10_000; t += 500)
    samples.push({
      atMs: T0 + t,
      lag: t === 4_000 ? 250 : 100,
      consumed: 50 + t / 10,
      cpuSeconds: t / 4_000,
    });
  for (let t = 10_500; t <= 80_000; t += 500) {
    const s = after(t);
    if (s !== undefined) samples.push(s);
  }
  return {
    name: 'target',
    targetRate: 100,
    loadStartMs: T0,
    loadEndMs: T0 + 10_000,
    written: 1_000,
    transactions: 20,
    consumedAtStart: 50,
    samples,
  };
}

/** After the load: lag 100 until `drainedAt` (ms after the start), then 0 with all consumed. */
const draining = (drainedAt: number) => (t: number) =>
  t < drainedAt
    ? { atMs: T0 + t, lag: 100, consumed: 1_000, cpuSeconds: t / 4_000 }
    : { atMs: T0 + t, lag: 0, consumed: 1_050, cpuSeconds: t / 4_000 };

describe('summarizePhase', () => {
  it('reports the rates, the largest lag, the lag at the stop, the drain time and the cores', () => {
    const s = summarizePhase(facts(draining(12_000)));
    expect(s).toMatchObject({
      writtenRate: 100,
      consumedRateLoaded: 100,
      maxLag: 250,
      lagAtStop: 100,
      drainMs: 2_000,
      drained: true,
      consumedRateOverall: 83.3,
    });
    expect(s.cpuCores).toBeCloseTo(0.25, 2);
    expect(s.peakCpuCores).toBeCloseTo(0.25, 2);
  });

  it('fails the phase when the lag is back to zero only after a minute, or never', () => {
    const late = summarizePhase(facts(draining(75_000)));
    expect(late.drainMs).toBe(65_000);
    expect(late.drained).toBe(false);
    const never = summarizePhase(facts(draining(Infinity)));
    expect(never.drainMs).toBeNull();
    expect(never.drained).toBe(false);
  });

  it('does not count a zero lag as drained while events are still unconsumed', () => {
    const s = summarizePhase(
      facts((t) => ({ atMs: T0 + t, lag: 0, consumed: t < 30_000 ? 1_000 : 1_050 })),
    );
    expect(s.drainMs).toBe(20_000);
  });

  it('leaves what analytics was not asked about unknown rather than zero', () => {
    const f = facts(draining(12_000));
    const unread = f.samples.map(({ atMs, lag }) => ({ atMs, lag }));
    const s = summarizePhase({ ...f, samples: unread });
    expect(s.consumedRateLoaded).toBeNull();
    expect(s.cpuCores).toBeNull();
    expect(formatPhases([s])[1]).toMatch(/^target\s+100\s+100\s+\?\s+250.*\? \/ \?$/);
  });

  it('refuses a phase whose load never ran', () => {
    expect(() => summarizePhase({ ...facts(), loadEndMs: T0 })).toThrow(/never ran/);
  });
});

describe('formatPhases', () => {
  it('prints one row per phase, with the drain time in seconds and never for none', () => {
    const lines = formatPhases([
      summarizePhase(facts(draining(12_000))),
      { ...summarizePhase(facts(draining(Infinity))), name: 'headroom 2x' },
    ]);
    expect(lines).toHaveLength(3);
    expect(lines[1]).toMatch(/^target\s+100\s+100\s+100\s+250\s+100\s+2\.0 s\s+0\.25 \/ 0\.25$/);
    expect(lines[2]).toMatch(/never/);
  });
});

describe('seriesTotal', () => {
  it('sums a series over its label sets and tells an absent one apart', () => {
    const text = [
      '# TYPE toolgate_analytics_events_consumed_total counter',
      'toolgate_analytics_events_consumed_total 1234',
      'toolgate_analytics_consumer_lag{partition="0"} 3',
      'toolgate_analytics_consumer_lag{partition="1"} 4',
    ].join('\n');
    expect(seriesTotal(text, 'toolgate_analytics_events_consumed_total')).toBe(1234);
    expect(seriesTotal(text, 'toolgate_analytics_consumer_lag')).toBe(7);
    expect(seriesTotal(text, 'toolgate_other')).toBeUndefined();
  });
});

describe('parseAnalyticsOptions', () => {
  it('defaults to the gate saturation rate, 60 s phases and a headroom phase', () => {
    expect(parseAnalyticsOptions([])).toMatchObject({ rate: 793, seconds: 60, headroom: true });
    expect(parseAnalyticsOptions(['--quick', '--no-headroom'])).toMatchObject({
      seconds: 20,
      headroom: false,
    });
  });

  it('names every bad value at once', () => {
    expect(() => parseAnalyticsOptions(['--rate', '0', '--seconds', 'x'])).toThrow(
      '--rate must be a whole number > 0; --seconds must be a whole number > 0',
    );
  });
});
