import { describe, expect, it } from 'vitest';
import { rejecterFor } from '../../decision.js';
import { auditEvent, type AuditEvent } from '../../messages/audit-event.js';
import { RecentAuditEvents, type KeptEventFilter } from './recent-audit-events.js';

const T0 = Date.parse('2026-03-01T09:00:00.000Z');
const MIN = 60_000;
const HOUR = 60 * MIN;
let serial = 0;

/** A refusal at authorization at `atMs`, of a distinct proposal each time. */
function refusal(atMs: number, facts: { tenant?: string; runId?: string } = {}): AuditEvent {
  const rejected = rejecterFor('authorization')('not_authorized', undefined, 'denied by p7');
  const ids = { tenant: 'acme', subject: 'bob', proposalId: `p${serial++}`, ...facts };
  return auditEvent({ kind: 'rejected', rejected, args: { amount: 5 }, ...ids }, new Date(atMs));
}

const minuteOf = (startMs: number, more: Partial<KeptEventFilter> = {}): KeptEventFilter => ({
  startMs,
  endMs: startMs + MIN,
  limit: 50,
  ...more,
});

/** A store holding partition 0 since T0, with `events` added at their own event time. */
function storeWith(events: readonly AuditEvent[], maxEvents?: number) {
  const store = new RecentAuditEvents({ keepMs: HOUR, ...(maxEvents ? { maxEvents } : {}) });
  store.hold(0, T0);
  for (const e of events) store.add(0, e, Date.parse(e.at), Date.parse(e.at));
  return store;
}

describe('RecentAuditEvents', () => {
  it("answers a window's events matching a row, newest first, at most the limit, without arguments", () => {
    const events = [
      refusal(T0 + 1_000),
      refusal(T0 + 3_000),
      refusal(T0 + 2_000, { tenant: 'globex' }),
      refusal(T0 + 4_000, { runId: 'r1' }),
      refusal(T0 + MIN),
    ];
    const store = storeWith(events);
    const page = store.page(minuteOf(T0, { tenant: 'acme', code: 'not_authorized' }), T0 + MIN);
    expect(page.complete).toBe(true);
    expect(page.events.map((e) => e.at)).toEqual(
      [4_000, 3_000, 1_000].map((ms) => new Date(T0 + ms).toISOString()),
    );
    expect(page.events[0]).toMatchObject({ internalDetail: 'denied by p7', runId: 'r1' });
    expect(page.events[0]).not.toHaveProperty('args');
    expect(store.page(minuteOf(T0, { runId: 'r1' }), T0 + MIN).events).toHaveLength(1);
    expect(store.page(minuteOf(T0, { limit: 2 }), T0 + MIN).events).toHaveLength(2);
    expect(store.page(minuteOf(T0, { stage: 'schema' }), T0 + MIN).events).toEqual([]);
  });

  it('keeps an event delivered twice once', () => {
    const e = refusal(T0);
    expect(storeWith([e, e]).size()).toBe(1);
  });

  it('says a window is not complete once the cap dropped any of its events, and keeps the latest', () => {
    const store = storeWith([refusal(T0), refusal(T0 + MIN), refusal(T0 + MIN + 1)], 2);
    expect(store.size()).toBe(2);
    expect(store.page(minuteOf(T0), T0 + 2 * MIN)).toMatchObject({ complete: false, events: [] });
    expect(store.page(minuteOf(T0 + MIN), T0 + 2 * MIN)).toMatchObject({ complete: true });
  });

  it('drops events older than it keeps them, and says windows that old are not complete', () => {
    const store = storeWith([refusal(T0), refusal(T0 + HOUR + MIN)]);
    expect(store.size()).toBe(1);
    expect(store.page(minuteOf(T0), T0 + HOUR + MIN).complete).toBe(false);
    expect(store.page(minuteOf(T0 + HOUR + MIN), T0 + HOUR + MIN).complete).toBe(true);
  });

  it('says a window that began before a partition was taken over is not complete', () => {
    const store = storeWith([refusal(T0 + MIN)]);
    store.hold(1, T0 + MIN + 30_000);
    expect(store.page(minuteOf(T0 + MIN), T0 + 2 * MIN).complete).toBe(false);
    expect(store.page(minuteOf(T0 + 2 * MIN), T0 + 2 * MIN).complete).toBe(true);
  });

  it("drops a partition's events when it is given away, and says their windows are not complete", () => {
    const store = storeWith([refusal(T0 + MIN)]);
    store.hold(1, T0);
    store.add(1, refusal(T0 + 2 * MIN), T0 + 2 * MIN, T0 + 2 * MIN);
    store.release(0, T0 + 3 * MIN);
    expect(store.size()).toBe(1);
    expect(store.page(minuteOf(T0 + MIN), T0 + 3 * MIN)).toMatchObject({
      complete: false,
      events: [],
    });
    expect(store.page(minuteOf(T0 + 2 * MIN), T0 + 3 * MIN)).toMatchObject({ complete: true });
    store.release(1, T0 + 3 * MIN);
    expect(store.page(minuteOf(T0 + 3 * MIN), T0 + 3 * MIN).complete).toBe(false);
  });
});
