import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isRefusal } from '../../audit-summary/is-refusal.js';
import {
  PartitionWindows,
  type FinalWindow,
  type PartitionWindowsSnapshot,
  type WindowSettings,
} from './partition-windows.js';
import type { WindowCounts } from './window-counts.js';
import { windowRecords, windowRecordSchema } from './window-records.js';
import type { WindowedEvent } from './windowed-event.js';
import { createValidator } from '../../tools/index.js';

const T0 = Date.parse('2026-12-07T12:00:00.000Z');
/** A clock after every event of the first tests: none is ahead of it. */
const NOW = T0 + 3_600_000;
const SETTINGS: WindowSettings = {
  graceMs: { minute: 30_000, hour: 300_000 },
  idleMs: 10_000,
  maxSkewMs: 60_000,
};

function event(atMs: number, over: Partial<WindowedEvent> = {}): WindowedEvent {
  return {
    eventId: `e-${atMs}-${Math.random()}`,
    kind: 'rejected',
    at: new Date(atMs).toISOString(),
    stage: 'authorization',
    code: 'not_authorized',
    disposition: 'final',
    tenant: 'acme',
    tool: 'search',
    subject: 'alice',
    runId: 'run-1',
    ...over,
  } as WindowedEvent;
}

/** The snapshot as it comes back from the topic: through JSON. */
const roundTrip = (s: PartitionWindowsSnapshot) =>
  JSON.parse(JSON.stringify(s)) as PartitionWindowsSnapshot;

const minutes = (closed: readonly FinalWindow[]) =>
  closed.filter((w) => w.counts.size === 'minute').map((w) => w.counts);

describe('PartitionWindows', () => {
  it('emits a minute window once, when the watermark passes its end plus grace', () => {
    const w = new PartitionWindows(0, SETTINGS);
    expect(w.observe(event(T0 + 1_000), NOW).closed).toEqual([]);
    expect(w.observe(event(T0 + 2_000), NOW).closed).toEqual([]);
    // end (T0+60s) + grace (30s) is not yet passed at T0+90s: still open.
    expect(w.observe(event(T0 + 90_000), NOW).closed).toEqual([]);
    const [closed] = minutes(w.observe(event(T0 + 90_001), NOW).closed);
    expect(closed).toMatchObject({ startMs: T0, events: 2, refusals: 2, late: 0 });
    expect(minutes(w.observe(event(T0 + 200_000), NOW).closed).map((c) => c.startMs)).toEqual([
      T0 + 60_000,
    ]);
  });

  it('counts an event of a closed window as late in the newest window, not in its own', () => {
    const w = new PartitionWindows(0, SETTINGS);
    w.observe(event(T0 + 1_000), NOW);
    w.observe(event(T0 + 100_000), NOW);
    const observed = w.observe(event(T0 + 5_000), NOW);
    expect(observed.lateIn).toEqual(['minute']);
    const live = w.live().filter((c) => c.size === 'minute');
    expect(live).toMatchObject([{ startMs: T0 + 60_000, events: 1, late: 1 }]);
    // Within the hour's 5 min grace, the same event is on time for the hour window.
    expect(w.live().find((c) => c.size === 'hour')).toMatchObject({ events: 3, late: 0 });
  });

  it('closes the windows of an idle partition read to its end by the clock, not of one with a backlog', () => {
    const w = new PartitionWindows(0, SETTINGS);
    w.observe(event(T0 + 1_000), T0 + 1_000);
    const later = T0 + 120_000;
    expect(w.tick(later, false)).toEqual([]);
    const closed = w.tick(later, true);
    expect(minutes(closed)).toMatchObject([{ startMs: T0, events: 1 }]);
    expect(closed.every((c) => c.closedBy === 'idle')).toBe(true);
    expect(w.observe(event(T0 + 2_000), later).lateIn).toEqual(['minute']);
  });

  it('waits for the idle time before closing by the clock', () => {
    const w = new PartitionWindows(0, SETTINGS);
    w.observe(event(T0 + 1_000), T0 + 95_000);
    expect(w.tick(T0 + 95_000 + SETTINGS.idleMs - 1, true)).toEqual([]);
    expect(minutes(w.tick(T0 + 95_000 + SETTINGS.idleMs, true))).toHaveLength(1);
  });

  it('counts a record that is not an audit event as invalid, never in a window', () => {
    const w = new PartitionWindows(0, SETTINGS);
    w.observe(event(T0 + 1_000), T0);
    expect(w.observe({ eventId: 'x' }, T0).invalid).toMatch(/not an audit event/);
    expect(w.observe({ ...event(T0), at: 'yesterday' }, T0).invalid).toMatch(/not a time/);
    expect(w.live().find((c) => c.size === 'minute')).toMatchObject({ events: 1, invalid: 2 });
  });

  it('does not let one event stamped far in the future close every window', () => {
    const w = new PartitionWindows(0, SETTINGS);
    w.observe(event(T0 + 1_000), T0 + 1_000);
    w.observe(event(T0 + 86_400_000), T0 + 1_000);
    expect(w.observe(event(T0 + 2_000), T0 + 2_000).lateIn).toEqual([]);
  });

  it('counts refusals by principal and by run, and accepted decisions only by dimensions', () => {
    const w = new PartitionWindows(2, SETTINGS);
    w.observe(event(T0, { subject: 'bob', runId: 'r2' }), T0);
    w.observe(event(T0, { subject: 'bob', runId: 'r3' }), T0);
    w.observe(event(T0, { kind: 'validated', code: null, disposition: null }), T0);
    const minute = w.live().find((c) => c.size === 'minute')!;
    expect(minute).toMatchObject({ partition: 2, events: 3, refusals: 2 });
    expect(minute.principals).toEqual([{ tenant: 'acme', subject: 'bob', refusals: 2 }]);
    expect(minute.runs.map((r) => r.runId)).toEqual(['r2', 'r3']);
    expect(minute.decisions.map((d) => d.count).sort()).toEqual([1, 2]);
  });

  it('rebuilds the same windows from its snapshot', () => {
    const w = new PartitionWindows(1, SETTINGS);
    w.observe(event(T0 + 1_000), T0);
    w.observe(event(T0 + 70_000), T0);
    const copy = new PartitionWindows(1, SETTINGS, roundTrip(w.snapshot()));
    expect(copy.live()).toEqual(w.live());
    const next = event(T0 + 200_000);
    expect(copy.observe(next, T0)).toEqual(w.observe(next, T0));
  });

  it('writes records its schema accepts, keyed by window, partition and dimensions', () => {
    const w = new PartitionWindows(3, SETTINGS);
    w.observe(event(T0 + 1_000), NOW);
    const closed = w.observe(event(T0 + 400_000), NOW).closed;
    const records = closed.flatMap(windowRecords);
    const validate = createValidator().compile(windowRecordSchema);
    for (const r of records) expect(validate(r.value), JSON.stringify(validate.errors)).toBe(true);
    expect(JSON.parse(records[0]!.key)).toEqual([
      'minute',
      '2026-12-07T12:00:00.000Z',
      3,
      'window',
    ]);
    expect(new Set(records.map((r) => r.key)).size).toBe(records.length);
  });
});

/** Decisions of `counts` as `dims → count`, summed. */
function sumDecisions(counts: readonly WindowCounts[]): Map<string, number> {
  const sums = new Map<string, number>();
  for (const c of counts) {
    for (const d of c.decisions) {
      const key = JSON.stringify([
        c.size,
        c.startMs,
        d.tenant,
        d.tool,
        d.rung,
        d.code,
        d.disposition,
      ]);
      sums.set(key, (sums.get(key) ?? 0) + d.count);
    }
  }
  return sums;
}

describe('PartitionWindows, for any arrival order', () => {
  const arbitraryEvent = fc.record({
    offsetMs: fc.integer({ min: 0, max: 3 * 3_600_000 }),
    tenant: fc.constantFrom('acme', 'globex', null),
    code: fc.constantFrom('not_authorized', null, 'schema_invalid'),
    subject: fc.constantFrom('alice', 'bob', null),
    arrivalJitterMs: fc.integer({ min: 0, max: 120_000 }),
  });

  it('gives every window, final or live, exactly the direct count of its on-time events, and counts the rest as late', () => {
    fc.assert(
      fc.property(fc.array(arbitraryEvent, { maxLength: 200 }), fc.boolean(), (specs, restart) => {
        let w = new PartitionWindows(0, SETTINGS);
        const out: WindowCounts[] = [];
        const expected = new Map<string, number>();
        let late = 0;
        specs.forEach((s, i) => {
          if (restart && i === Math.floor(specs.length / 2)) {
            w = new PartitionWindows(0, SETTINGS, roundTrip(w.snapshot()));
          }
          const e = event(T0 + s.offsetMs, {
            tenant: s.tenant,
            code: s.code as WindowedEvent['code'],
            subject: s.subject,
            kind: s.code === null ? 'accepted' : 'rejected',
          } as Partial<WindowedEvent>);
          const o = w.observe(e, T0 + s.offsetMs + s.arrivalJitterMs);
          out.push(...o.closed.map((c) => c.counts));
          for (const size of ['minute', 'hour'] as const) {
            if (o.lateIn.includes(size)) {
              late += 1;
              continue;
            }
            const start = Math.floor((T0 + s.offsetMs) / (size === 'minute' ? 60_000 : 3_600_000));
            const ms = start * (size === 'minute' ? 60_000 : 3_600_000);
            const key = JSON.stringify([
              size,
              ms,
              e.tenant,
              e.tool,
              e.stage,
              e.code,
              e.disposition,
            ]);
            expected.set(key, (expected.get(key) ?? 0) + 1);
          }
          expect(isRefusal(e)).toBe(e.code !== null);
        });
        out.push(...w.tick(T0 + 100 * 3_600_000, true).map((c) => c.counts));
        expect(w.live()).toEqual([]);
        expect(sumDecisions(out)).toEqual(expected);
        expect(out.reduce((n, c) => n + c.late, 0)).toBe(late);
        // Each window emitted once.
        const ids = out.map((c) => `${c.size}@${c.startMs}`);
        expect(new Set(ids).size).toBe(ids.length);
      }),
      { numRuns: 300 },
    );
  });
});
