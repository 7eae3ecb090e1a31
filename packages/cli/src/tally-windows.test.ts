import { PartitionWindows, windowRecords, type FinalWindow } from '@toolgate/shared';
import { describe, expect, it } from 'vitest';
import { tallyAudit } from './tally-audit.js';
import { parseWindowSize, tallyWindows } from './tally-windows.js';

const T0 = Date.parse('2026-12-07T12:00:00.000Z');
const SETTINGS = { graceMs: { minute: 30_000, hour: 300_000 }, idleMs: 1_000, maxSkewMs: 60_000 };

const events = Array.from({ length: 60 }, (_, i) => ({
  eventId: `e${i}`,
  kind: i % 3 === 0 ? 'validated' : i % 7 === 0 ? 'pending_confirmation' : 'rejected',
  at: new Date(T0 + i * 10_000).toISOString(),
  stage: i % 3 === 0 ? 'schema' : i % 7 === 0 ? 'confirmation' : 'authorization',
  code: i % 3 === 0 ? null : i % 7 === 0 ? 'pending' : 'not_authorized',
  disposition: i % 3 === 0 ? null : 'final',
  tenant: i % 2 === 0 ? 'acme' : 'globex',
  tool: 'search',
  subject: 'alice',
  runId: 'r1',
  outcome: null,
}));

/** The final records the service would write for `events` on two partitions, as `[key, value]`. */
function finalRecords(): [string, unknown][] {
  const closed: FinalWindow[] = [];
  for (const p of [0, 1]) {
    const w = new PartitionWindows(p, SETTINGS);
    for (const e of events.filter((_, i) => i % 2 === p))
      closed.push(...w.observe(e, T0 + 3_600_000).closed);
    closed.push(...w.tick(T0 + 10 * 3_600_000, true));
  }
  return closed.flatMap(windowRecords).map((r) => [r.key, r.value]);
}

describe('tallyWindows', () => {
  it('sums final windows into the rows tallyAudit counts from the same events', () => {
    const by = ['tenant', 'stage', 'code'] as const;
    for (const include of ['all', 'refusals'] as const) {
      const fromWindows = tallyWindows(finalRecords(), { size: 'minute', fromMs: T0 }, by, include);
      expect(fromWindows.rows).toEqual(tallyAudit(events, by, include).rows);
    }
  });

  it('counts only the windows of the span, and of the size asked for', () => {
    const span = { size: 'minute', fromMs: T0 + 120_000, toMs: T0 + 300_000 } as const;
    const inSpan = events.filter(
      (e) => Date.parse(e.at) >= T0 + 120_000 && Date.parse(e.at) < T0 + 300_000,
    );
    const got = tallyWindows(finalRecords(), span, ['tenant'], 'all');
    expect(got.counted).toBe(inSpan.length);
    expect(got.windows).toBe(3 * 2);
    expect(
      tallyWindows(finalRecords(), { size: 'hour', fromMs: T0 }, ['tenant'], 'all').counted,
    ).toBe(60);
  });

  it('refuses dimensions the windows do not carry, and sizes that are not windows', () => {
    expect(() => tallyWindows([], { size: 'hour', fromMs: 0 }, ['kind'], 'all')).toThrow(
      /not kind/,
    );
    expect(() => parseWindowSize('day')).toThrow(/minute, hour/);
  });
});
