import { describe, expect, it } from 'vitest';
import { median, percentile, percentilesOf, spreadOf } from './stats.js';

describe('median', () => {
  it('takes the middle value of an odd count and the mean of the middle two of an even one', () => {
    expect(median([5, 1, 3])).toBe(3);
    expect(median([4, 1, 3, 2])).toBe(2.5);
  });

  it('is NaN for no values and leaves its input unsorted', () => {
    const values = [3, 1, 2];
    expect(median([])).toBeNaN();
    median(values);
    expect(values).toEqual([3, 1, 2]);
  });
});

describe('spreadOf', () => {
  it('reports the extremes and the range relative to the median', () => {
    expect(spreadOf([10, 8, 12])).toEqual({ median: 10, min: 8, max: 12, relative: 0.4 });
  });

  it('reports no spread for a single round', () => {
    expect(spreadOf([7]).relative).toBe(0);
  });

  it('is NaN throughout for no values, not ±Infinity', () => {
    expect(Object.values(spreadOf([])).every(Number.isNaN)).toBe(true);
  });
});

describe('percentile', () => {
  const sorted = Float64Array.from({ length: 100 }, (_, i) => i + 1);

  it('returns an observed value by nearest rank', () => {
    expect(percentile(sorted, 50)).toBe(50);
    expect(percentile(sorted, 99)).toBe(99);
    expect(percentile(sorted, 99.9)).toBe(100);
    expect(percentile([42], 99)).toBe(42);
  });

  it('clamps to the first and last value', () => {
    expect(percentile(sorted, 0)).toBe(1);
    expect(percentile(sorted, 100)).toBe(100);
  });
});

describe('percentilesOf', () => {
  it('sorts the samples itself and counts them', () => {
    const samples = [9, 1, 5, 3, 7, 2, 8, 4, 6, 10];
    expect(percentilesOf(samples)).toEqual({
      count: 10,
      p50: 5,
      p90: 9,
      p99: 10,
      p999: 10,
      max: 10,
    });
    expect(samples[0]).toBe(9);
  });
});
