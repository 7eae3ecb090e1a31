import { describe, expect, it } from 'vitest';
import { MAX_ENTRIES_PER_SUBJECT, SlidingWindow } from './sliding-window.js';

const entry = (atMs: number, marks: readonly string[] = []) => ({
  atMs,
  eventId: `e${atMs}`,
  position: { partition: 0, offset: String(atMs) },
  marks,
});

describe('SlidingWindow', () => {
  it('keeps events in time order, whatever order they come in, and counts their marks', () => {
    const w = new SlidingWindow(10_000);
    for (const at of [3000, 1000, 2000]) w.add(entry(at, [at === 1000 ? 'a' : 'b']), 3000);
    expect(w.oldest(5).map((e) => e.atMs)).toEqual([1000, 2000, 3000]);
    expect(Object.fromEntries(w.marks)).toEqual({ a: 1, b: 2 });
  });

  it('drops what falls out of the window behind the watermark, marks included', () => {
    const w = new SlidingWindow(10_000);
    w.add(entry(1000, ['x']), 1000);
    w.add(entry(5000, ['y']), 5000);
    w.prune(11_000);
    expect([w.total, w.startMs, [...w.marks.keys()]]).toEqual([1, 5000, ['y']]);
    w.prune(15_000);
    expect([w.total, w.startMs, w.marks.size]).toEqual([0, undefined, 0]);
  });

  it(`holds at most ${MAX_ENTRIES_PER_SUBJECT} events, dropping the oldest`, () => {
    const w = new SlidingWindow(3_600_000);
    for (let i = 0; i <= MAX_ENTRIES_PER_SUBJECT; i += 1) w.add(entry(i, [`m${i}`]), i);
    expect(w.total).toBe(MAX_ENTRIES_PER_SUBJECT);
    expect(w.startMs).toBe(1);
    expect(w.marks.size).toBe(MAX_ENTRIES_PER_SUBJECT);
  });
});
