import { describe, expect, it } from 'vitest';
import { FAIRNESS_LEGS, formatPhaseLegs, phaseLegs } from './fairness-hops.js';
import { HOPS, type Stamp } from './hop-times.js';
import type { CallTime } from './load-driver.js';

/** The stamps of one call that went the whole way: each hop `gap` ms after the one before. */
function call(id: string, start: number, gap: number): Stamp[] {
  return HOPS.map((hop, i) =>
    hop === 'commands'
      ? { hop, id, commandId: `c-${id}`, at: start + i * gap }
      : hop === 'results'
        ? { hop, id: `c-${id}`, at: start + i * gap }
        : { hop, id, at: start + i * gap },
  );
}

describe('phaseLegs', () => {
  it('splits each call into the send, the gate hops and the read, and finds the slow ones', () => {
    const stamps: Stamp[] = [];
    const times = new Map<string, CallTime>();
    for (let n = 0; n < 20; n += 1) {
      const id = `g.r0-alone-v.${n}`;
      // The last call is slow in validate only.
      const slow = n === 19;
      const s = call(id, 1_000 * n + 5, 10).map((x) =>
        slow && x.hop !== 'proposals' ? { ...x, at: x.at + 200 } : x,
      );
      stamps.push(...s);
      times.set(id, { dueAt: 1_000 * n, answeredAt: 1_000 * n + 5 + 60 + (slow ? 200 : 0) + 3 });
    }
    stamps.push(...call('g.r0-flooded-v.0', 0, 99));
    const p = phaseLegs(stamps, times, (id) => id.includes('-alone-'));
    expect(p.calls).toBe(20);
    expect(p.legs.map((l) => l.leg)).toEqual([...FAIRNESS_LEGS]);
    const leg = (name: string) => p.legs.find((l) => l.leg === name);
    expect(leg('sent')).toMatchObject({ p50: 5, tailMean: 5 });
    expect(leg('validated')).toMatchObject({ p50: 10, tailMean: 210 });
    expect(leg('authorized')).toMatchObject({ p50: 10, tailMean: 10 });
    expect(leg('delivered')).toMatchObject({ p50: 3 });
    expect(p.total).toMatchObject({ p50: 68, tailMean: 268 });
    expect(formatPhaseLegs({ alone: p })[0]).toContain('validated 10/');
  });

  it('leaves out calls the driver did not answer', () => {
    const p = phaseLegs(call('g.r0-alone-v.1', 0, 1), new Map(), () => true);
    expect(p.calls).toBe(0);
    expect(formatPhaseLegs({ alone: p })[0]).toContain('sent –/–/–');
  });
});
