import { describe, expect, it } from 'vitest';
import { createTopLabels, MAX_LABEL_VALUE_CHARS, OTHER_LABEL } from './top-labels.js';

describe('createTopLabels', () => {
  it('never uses more than limit + 1 labels under 10,000 distinct values', () => {
    const top = createTopLabels({ limit: 20 });
    const labels = new Set<string>();
    for (let round = 0; round < 3; round += 1) {
      for (let i = 0; i < 10_000; i += 1) labels.add(top.observe(`tenant-${i}`).label);
    }
    expect(labels.size).toBeLessThanOrEqual(21);
    expect(labels.has(OTHER_LABEL)).toBe(true);
    expect(top.kept()).toHaveLength(20);
  });

  it('counts every value outside the kept ones under other', () => {
    const top = createTopLabels({ limit: 2 });
    const counts = new Map<string, number>();
    const add = (value: string, weight: number) => {
      const { label } = top.observe(value, weight);
      counts.set(label, (counts.get(label) ?? 0) + weight);
    };
    add('acme', 50);
    add('globex', 40);
    for (let i = 0; i < 30; i += 1) add(`small-${i}`, 1);
    expect(Object.fromEntries(counts)).toEqual({ acme: 50, globex: 40, other: 30 });
  });

  it('lets a value that became far busier displace the least busy kept one', () => {
    const top = createTopLabels({ limit: 2 });
    top.observe('acme', 100);
    top.observe('globex', 5);
    expect(top.observe('initech', 6).label).toBe(OTHER_LABEL);
    expect(top.observe('initech', 6)).toEqual({ label: 'initech', evicted: 'globex' });
    expect(top.kept()).toEqual(['acme', 'initech']);
    expect(top.observe('globex').label).toBe(OTHER_LABEL);
  });

  it('keeps the same top values while volumes of similar size interleave', () => {
    const top = createTopLabels({ limit: 3 });
    const evictions: string[] = [];
    for (let i = 0; i < 5_000; i += 1) {
      for (const [value, every] of [
        ['a', 1],
        ['b', 1],
        ['c', 1],
        ['d', 1],
        ['e', 2],
      ] as const) {
        if (i % every !== 0) continue;
        const { evicted } = top.observe(value);
        if (evicted !== undefined) evictions.push(evicted);
      }
    }
    expect(top.kept()).toEqual(['a', 'b', 'c']);
    expect(evictions).toEqual([]);
  });

  it('is not fooled by a stream of distinct newcomers into evicting a busy value', () => {
    const top = createTopLabels({ limit: 2, tracked: 4 });
    top.observe('acme', 3);
    top.observe('globex', 3);
    for (let i = 0; i < 1_000; i += 1) {
      expect(top.observe(`forged-${i}`)).toEqual({ label: OTHER_LABEL });
    }
    expect(top.kept()).toEqual(['acme', 'globex']);
  });

  it('never keeps reserved words, empty or overlong values as labels', () => {
    const top = createTopLabels({ limit: 5 });
    for (const value of ['other', 'none', '', 'x'.repeat(MAX_LABEL_VALUE_CHARS + 1)]) {
      expect(top.observe(value, 1000).label).toBe(OTHER_LABEL);
    }
    expect(top.kept()).toEqual([]);
    expect(top.observe('x'.repeat(MAX_LABEL_VALUE_CHARS)).label).toHaveLength(
      MAX_LABEL_VALUE_CHARS,
    );
  });

  it('refuses options and weights out of range', () => {
    expect(() => createTopLabels({ limit: 0 })).toThrow(/limit must be an integer of at least 1/);
    expect(() => createTopLabels({ limit: 5, tracked: 5 })).toThrow(
      /tracked must be an integer above limit/,
    );
    expect(() => createTopLabels({ hysteresis: 0.5 })).toThrow(
      /hysteresis must be a number of at least 1/,
    );
    expect(() => createTopLabels().observe('acme', 1.5)).toThrow(/weight must be a whole number/);
    expect(() => createTopLabels().observe('acme', -1)).toThrow(/weight must be a whole number/);
  });
});
