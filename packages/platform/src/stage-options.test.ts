import { describe, expect, it } from 'vitest';
import { STOP_SHARE } from './config.js';
import { stopBound } from './stage-options.js';

describe('stopBound', () => {
  it('gives the only loop of a process its share of the deadline', () => {
    expect(STOP_SHARE).toBeLessThan(1);
    expect(stopBound(10_000)).toBe(8000);
  });

  it('splits the share evenly among loops that stop one after another', () => {
    expect(stopBound(10_000, 4)).toBe(2000);
    expect(stopBound(4000, 2) * 2).toBeLessThan(4000);
  });

  it('never gives a loop no time at all', () => {
    expect(stopBound(100, 1000)).toBe(1);
    expect(stopBound(10_000, 0)).toBe(8000);
  });
});
