import { describe, expect, it } from 'vitest';
import { CliError } from './cli-error.js';
import { parseSince } from './parse-since.js';

const NOW = Date.parse('2026-03-01T12:00:00Z');

describe('parseSince', () => {
  it('reads durations back from now', () => {
    expect(parseSince('90s', NOW)).toBe(NOW - 90_000);
    expect(parseSince('15m', NOW)).toBe(NOW - 900_000);
    expect(parseSince('1h', NOW)).toBe(NOW - 3_600_000);
    expect(parseSince('1.5h', NOW)).toBe(NOW - 5_400_000);
    expect(parseSince('2d', NOW)).toBe(NOW - 172_800_000);
    expect(parseSince('250ms', NOW)).toBe(NOW - 250);
  });

  it('starts a window that reaches back before 1970 at the epoch, a time a Date can hold', () => {
    for (const long of ['20600d', '200000000d', `${'9'.repeat(400)}s`]) {
      const since = parseSince(long, NOW);
      expect(since, long).toBe(0);
      expect(new Date(since).toISOString(), long).toBe('1970-01-01T00:00:00.000Z');
    }
  });

  it('reads ISO-8601 instants', () => {
    expect(parseSince('2026-03-01T11:00:00Z', NOW)).toBe(NOW - 3_600_000);
    expect(parseSince('2026-03-01T12:30:00+01:00', NOW)).toBe(NOW - 1_800_000);
    expect(parseSince('2026-02-28', NOW)).toBe(Date.parse('2026-02-28T00:00:00Z'));
    expect(parseSince('2024-02-29', NOW)).toBe(Date.parse('2024-02-29T00:00:00Z'));
  });

  it('refuses other text, and an instant in the future, as usage errors', () => {
    const notDays = ['2026-02-30', '2026-02-29T10:00:00Z', '2025-04-31'];
    for (const bad of [
      '',
      '1 hour',
      'h',
      '-1h',
      'yesterday',
      '12',
      '2026-13-45T00:00:00Z',
      ...notDays,
    ]) {
      expect(() => parseSince(bad, NOW), bad).toThrow(CliError);
      expect(() => parseSince(bad, NOW), bad).toThrow(/duration .* or an ISO-8601 instant/);
    }
    expect(() => parseSince('2026-03-02T00:00:00Z', NOW)).toThrow(/in the future/);
    try {
      parseSince('soon', NOW);
    } catch (error) {
      expect((error as CliError).exitCode).toBe(2);
    }
  });
});
