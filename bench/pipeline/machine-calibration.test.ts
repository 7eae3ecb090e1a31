import { describe, expect, it } from 'vitest';
import { calibrateMachine, formatCalibration, speedAllBusy } from './machine-calibration.js';

describe('speedAllBusy', () => {
  it('is one alone over each when all are busy', () => {
    expect(speedAllBusy(880, 2000)).toBe(0.44);
    expect(speedAllBusy(500, 500)).toBe(1);
  });

  it('refuses times that are not positive', () => {
    expect(() => speedAllBusy(0, 10)).toThrow(RangeError);
    expect(() => speedAllBusy(10, Number.NaN)).toThrow(RangeError);
  });
});

describe('calibrateMachine', () => {
  it('times the loop in worker threads, alone and on two at once, and a loopback round trip', async () => {
    const c = await calibrateMachine({ rounds: 1, steps: 2_000_000, cores: 2, trips: 50 });
    expect(c.cores).toBe(2);
    expect(c.oneBusyMs).toBeGreaterThan(0);
    expect(c.allBusyMs).toBeGreaterThan(0);
    expect(c.speedAllBusy).toBe(speedAllBusy(c.oneBusyMs, c.allBusyMs));
    expect(c.loopbackRoundTripUs).toBeGreaterThan(0);
    expect(formatCalibration(c)).toMatch(
      /^all 2 cores busy: \d\.\d\d of one core's speed .*; loopback round trip [\d.]+ µs$/,
    );
  });
});
