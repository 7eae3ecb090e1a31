import { describe, expect, it } from 'vitest';
import { parseBenchOptions } from './bench-options.js';

describe('parseBenchOptions', () => {
  it('makes --quick three short repetitions and the default five longer ones', () => {
    const quick = parseBenchOptions(['--quick']);
    const full = parseBenchOptions([]);
    expect(quick).toMatchObject({ mode: 'quick', reps: 3, fractions: [0.05, 0.25, 0.5, 0.75] });
    expect(full).toMatchObject({ mode: 'full', reps: 5, out: 'bench/results/latest.json' });
    expect(full.saturationMs).toBeGreaterThan(quick.saturationMs);
  });

  it('refuses fewer than three repetitions and unknown flags, naming them', () => {
    expect(() => parseBenchOptions(['--reps', '2'])).toThrow(
      '--reps must be a whole number ≥ 3, got "2"',
    );
    expect(() => parseBenchOptions(['--reps', 'x'])).toThrow(/--reps/);
    expect(() => parseBenchOptions(['--fast'])).toThrow(/fast/);
  });

  it('takes the saturation window from --window, 200 by default', () => {
    expect(parseBenchOptions([]).window).toBe(200);
    expect(parseBenchOptions(['--window', '500']).window).toBe(500);
    expect(() => parseBenchOptions(['--window', '5'])).toThrow(
      /--window must be a whole number ≥ 10/,
    );
  });

  it('passes a profile directory through', () => {
    expect(parseBenchOptions(['--profile', 'bench/results/p']).profileDir).toBe('bench/results/p');
  });

  it('samples a profile every 10 ms unless --profile-interval says otherwise, and only with --profile', () => {
    expect(parseBenchOptions(['--profile', 'p']).profileIntervalUs).toBe(10_000);
    expect(
      parseBenchOptions(['--profile', 'p', '--profile-interval', '1000']).profileIntervalUs,
    ).toBe(1000);
    expect(() => parseBenchOptions(['--profile', 'p', '--profile-interval', '50'])).toThrow(
      /--profile-interval must be a whole number from 100 to 1000000, got "50"/,
    );
    expect(() => parseBenchOptions(['--profile-interval', '1000'])).toThrow(
      /--profile-interval needs --profile DIR/,
    );
  });

  it('reads the topics again for the hop times only when asked (--hops)', () => {
    expect(parseBenchOptions(['--quick']).hops).toBe(false);
    expect(parseBenchOptions(['--quick', '--hops']).hops).toBe(true);
  });

  it('runs the fairness scenario only when asked, writing fairness.json unless told otherwise', () => {
    expect(parseBenchOptions(['--quick'])).toMatchObject({ fairness: false });
    expect(parseBenchOptions(['--quick', '--fairness'])).toMatchObject({
      fairness: true,
      out: 'bench/results/fairness.json',
    });
    expect(parseBenchOptions(['--fairness', '--out', 'x.json']).out).toBe('x.json');
    expect(() => parseBenchOptions(['--fairness', '--hops'])).toThrow(/no relay/);
  });

  it('takes the open-loop levels from --loads, sorted, as fractions, 50 among them', () => {
    expect(parseBenchOptions(['--loads', '75,5,50,25,5']).fractions).toEqual([
      0.05, 0.25, 0.5, 0.75,
    ]);
    expect(() => parseBenchOptions(['--loads', '25,75'])).toThrow(
      '--loads must include 50 (the ratios compare half load), got "25,75"',
    );
    for (const bad of ['0,50', '50,100', '50,2.5', '50,', 'half'])
      expect(() => parseBenchOptions(['--loads', bad])).toThrow(/--loads/);
  });

  it('takes the fetch settings of both systems from TOOLGATE_FETCH_*, by default the stage loop defaults', () => {
    expect(parseBenchOptions(['--quick']).fetch).toEqual({
      fetchMaxWaitMs: 25,
      fetchMinBytes: 32_768,
      fetchBusyMinBytes: 2048,
    });
    const env = { TOOLGATE_FETCH_MAX_WAIT_MS: '8', TOOLGATE_FETCH_BUSY_MIN_BYTES: '1' };
    expect(parseBenchOptions(['--quick'], env).fetch).toEqual({
      fetchMaxWaitMs: 8,
      fetchMinBytes: 32_768,
      fetchBusyMinBytes: 1,
    });
    expect(() => parseBenchOptions([], { TOOLGATE_FETCH_MAX_WAIT_MS: 'soon' })).toThrow(
      /TOOLGATE_FETCH_MAX_WAIT_MS must be integer/,
    );
  });
});
