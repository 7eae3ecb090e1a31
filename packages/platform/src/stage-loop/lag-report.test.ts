import { describe, expect, it } from 'vitest';
import { lagOf } from './lag-report.js';

describe('lagOf', () => {
  it('counts the records from the group position to the end of the partition', () => {
    expect(lagOf('10', '9', '4')).toBe(6);
    expect(lagOf('10', '9', '10')).toBe(0);
  });

  it('counts from what the fetch covered when the high watermark was read before the log', () => {
    // Record 0 fetched with a high watermark of 0: one record behind, not none.
    expect(lagOf('0', '0', '0')).toBe(1);
  });

  it('is never negative', () => {
    expect(lagOf('5', '4', '7')).toBe(0);
  });
});
