import type { WindowCounts } from '@toolgate/shared';
import { describe, expect, it } from 'vitest';
import { summarize, TOP_REFUSED, WindowBoard } from './window-board.js';

const START = Date.parse('2026-03-01T09:00:00Z');

function counts(partition: number, over: Partial<WindowCounts> = {}): WindowCounts {
  return {
    size: 'minute',
    startMs: START,
    endMs: START + 60_000,
    partition,
    events: 3,
    refusals: 2,
    late: 1,
    invalid: 0,
    decisions: [
      {
        tenant: 'acme',
        tool: 'search',
        rung: 'schema',
        code: 'unknown_tool',
        disposition: 'repairable',
        refusal: true,
        count: 2,
      },
      {
        tenant: 'acme',
        tool: 'search',
        rung: 'result',
        code: null,
        disposition: null,
        refusal: false,
        count: 1,
      },
    ],
    principals: [{ tenant: 'acme', subject: 'alice', refusals: 2 }],
    runs: [{ tenant: 'acme', runId: `run-${partition}`, refusals: 2 }],
    ...over,
  };
}

describe('summarize', () => {
  it('sums the partitions of one window by row, principal and run, most first', () => {
    const s = summarize([counts(0), counts(1)], 'final');
    expect(s).toMatchObject({
      size: 'minute',
      state: 'final',
      late: 2,
      start: '2026-03-01T09:00:00.000Z',
    });
    expect(s.rows.map((r) => [r.code, r.count])).toEqual([
      ['unknown_tool', 4],
      [null, 2],
    ]);
    expect(s.topRefusedPrincipals).toEqual([{ id: 'alice', tenant: 'acme', refusals: 4 }]);
    expect(s.topRefusedRuns.map((r) => r.id).sort()).toEqual(['run-0', 'run-1']);
  });

  it(`names at most ${TOP_REFUSED} runs, the most refused`, () => {
    const runs = Array.from({ length: 30 }, (_, i) => ({
      tenant: 'acme',
      runId: `r${i}`,
      refusals: i,
    }));
    const s = summarize([counts(0, { runs })], 'live');
    expect(s.topRefusedRuns).toHaveLength(TOP_REFUSED);
    expect(s.topRefusedRuns[0]).toEqual({ id: 'r29', tenant: 'acme', refusals: 29 });
  });
});

describe('WindowBoard', () => {
  it('stays live while a partition still counts the window, and is final once none does', () => {
    const board = new WindowBoard();
    const open = [counts(1)];
    const first = board.final(counts(0), open);
    expect(first.state).toBe('live');
    expect(first.rows.find((r) => r.code === 'unknown_tool')?.count).toBe(4);
    expect(board.live(open)).toHaveLength(1);
    const last = board.final(counts(1), []);
    expect(last.state).toBe('final');
    expect(last.rows.find((r) => r.code === 'unknown_tool')?.count).toBe(4);
  });

  it('forgets the oldest windows past the number it keeps', () => {
    const board = new WindowBoard(2);
    for (let i = 0; i < 3; i += 1) {
      board.final(counts(0, { startMs: START + i * 60_000, endMs: START + (i + 1) * 60_000 }), []);
    }
    // The first window's final counts are gone: its live view now shows only what is open.
    const reopened = board.live([counts(1)]);
    expect(reopened[0]?.rows.find((r) => r.code === 'unknown_tool')?.count).toBe(2);
  });
});
