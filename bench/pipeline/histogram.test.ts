import { describe, expect, it } from 'vitest';
import { createHistogram, mergeHistograms } from './histogram.js';

describe('createHistogram', () => {
  it('reports percentiles within 1 % of the recorded samples and the exact max', () => {
    const h = createHistogram();
    for (let ms = 1; ms <= 1000; ms += 1) h.record(ms);
    const s = h.summary();
    expect(s.count).toBe(1000);
    expect(s.p50).toBeGreaterThanOrEqual(500);
    expect(s.p50).toBeLessThanOrEqual(505);
    expect(s.p99).toBeGreaterThanOrEqual(990);
    expect(s.p99).toBeLessThanOrEqual(1000);
    expect(s.max).toBe(1000);
  });

  it('never reports a percentile above the largest sample', () => {
    const h = createHistogram();
    h.record(3.3);
    expect(h.percentile(99.9)).toBe(3.3);
    expect(h.percentile(0)).toBe(3.3);
  });

  it('is NaN everywhere when empty', () => {
    const s = createHistogram().summary();
    expect(s.count).toBe(0);
    expect(s.p50).toBeNaN();
    expect(s.max).toBeNaN();
  });

  it('keeps sub-floor and huge samples without losing the count', () => {
    const h = createHistogram();
    h.record(0);
    h.record(5_000_000);
    expect(h.count()).toBe(2);
    expect(h.percentile(50)).toBeLessThanOrEqual(0.01);
    expect(h.max()).toBe(5_000_000);
  });

  it('refuses a negative or non-finite sample', () => {
    const h = createHistogram();
    expect(() => h.record(-1)).toThrow(/≥ 0 ms/);
    expect(() => h.record(Number.NaN)).toThrow(RangeError);
  });

  it('merges histograms into one that holds every sample', () => {
    const low = createHistogram();
    const high = createHistogram();
    for (let ms = 1; ms <= 500; ms += 1) low.record(ms);
    for (let ms = 501; ms <= 1000; ms += 1) high.record(ms);
    const merged = mergeHistograms([low, high, createHistogram()]);
    expect(merged.count()).toBe(1000);
    expect(merged.max()).toBe(1000);
    expect(merged.percentile(50)).toBeGreaterThanOrEqual(500);
    expect(merged.percentile(50)).toBeLessThanOrEqual(505);
    expect(merged.percentile(99)).toBeGreaterThanOrEqual(990);
    expect(low.count()).toBe(500);
  });

  it('merges nothing into an empty histogram', () => {
    const merged = mergeHistograms([]);
    expect(merged.count()).toBe(0);
    expect(merged.percentile(99)).toBeNaN();
  });
});
