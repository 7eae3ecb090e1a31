import { describe, expect, it } from 'vitest';
import { RATE_CLOCK_SKEW_MS, RATE_LOOKBACK_MS, rateSecondOf } from './rate-second.js';

const now = new Date('2026-12-07T10:00:00.750Z');
const nowSecond = Math.floor(now.getTime() / 1000);

describe('rateSecondOf', () => {
  it('counts a call in the second its record reached the broker', () => {
    expect(rateSecondOf(now.getTime() - 42_300, now)).toBe(nowSecond - 42);
    expect(rateSecondOf(now.getTime() - RATE_LOOKBACK_MS, now)).toBe(
      Math.floor((now.getTime() - RATE_LOOKBACK_MS) / 1000),
    );
    expect(rateSecondOf(now.getTime() + RATE_CLOCK_SKEW_MS, now)).toBe(
      Math.floor((now.getTime() + RATE_CLOCK_SKEW_MS) / 1000),
    );
  });

  it.each([
    ['missing', undefined],
    ['older than the topic keeps a record', now.getTime() - RATE_LOOKBACK_MS - 1],
    ['in the future beyond the clock skew', now.getTime() + RATE_CLOCK_SKEW_MS + 1],
    ['not an integer', 1.5],
    ['not a number', Number.NaN],
    ['negative', -1],
  ])('counts a call whose timestamp is %s in the current second', (_, timestamp) => {
    expect(rateSecondOf(timestamp, now)).toBe(nowSecond);
  });
});
