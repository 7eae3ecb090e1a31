import { describe, expect, it } from 'vitest';
import { formatHops, HOPS, hopTopicsOf, summarizeHops, type Stamp } from './hop-times.js';

/** The seven stamps of one call that went the whole way, `gaps` ms apart. */
function call(id: string, start: number, gaps: readonly number[]): Stamp[] {
  const commandId = `cmd-${id}`;
  const stamps: Stamp[] = [{ hop: 'proposals', id, at: start }];
  let at = start;
  HOPS.slice(1).forEach((hop, i) => {
    at += gaps[i] ?? 0;
    if (hop === 'commands') stamps.push({ hop, id, commandId, at });
    else if (hop === 'results') stamps.push({ hop, id: commandId, at });
    else stamps.push({ hop, id, at });
  });
  return stamps;
}

describe('summarizeHops', () => {
  it('gives each hop the gap from the stamp before, matching results by their command', () => {
    const stamps = [
      ...call('g.o25r0-gate.1', 1_000, [10, 20, 30, 40, 50, 60]),
      ...call('g.o25r0-gate.2', 2_000, [12, 22, 32, 42, 52, 62]),
      ...call('g.o25r0-gate.3', 3_000, [14, 24, 34, 44, 54, 64]),
    ];
    const s = summarizeHops(stamps, () => true);
    expect(s.calls).toBe(3);
    expect(s.gaps.map((g) => [g.hop, g.p50, g.p90])).toEqual([
      ['validated', 12, 14],
      ['authorized', 22, 24],
      ['cleared', 32, 34],
      ['commands', 42, 44],
      ['results', 52, 54],
      ['observations', 62, 64],
    ]);
    expect(s.total).toEqual({ p50: 222, p90: 234 });
  });

  it('leaves out calls not wanted, calls that stopped early and calls that waited for a person', () => {
    const refused = call('g.o25r0-gate.2', 0, [5]).slice(0, 2);
    const stamps = [
      ...call('g.o25r0-gate.1', 0, [1, 1, 1, 1, 1, 1]),
      ...refused,
      ...call('g.o25r0-gate.3', 0, [9, 9, 9, 9, 9, 9]),
      { hop: 'confirmations', id: 'g.o25r0-gate.3', at: 5 } as const,
      ...call('g.o50r0-gate.4', 0, [7, 7, 7, 7, 7, 7]),
    ];
    const s = summarizeHops(stamps, (id) => id.startsWith('g.o25r'));
    expect(s.calls).toBe(1);
    expect(s.total.p50).toBe(6);
  });

  it('keeps the first stamp of a hop when a record was written again', () => {
    const stamps = [
      ...call('r.o25r0-relay.1', 0, [10, 10, 10, 10, 10, 10]),
      { hop: 'validated', id: 'r.o25r0-relay.1', at: 500 } as const,
    ];
    expect(summarizeHops(stamps, () => true).gaps[0]).toMatchObject({ p50: 10 });
  });

  it('reports no calls as NaN, which the line shows as a dash', () => {
    const s = summarizeHops([], () => true);
    expect(s.calls).toBe(0);
    expect(Number.isNaN(s.total.p50)).toBe(true);
    const [line] = formatHops({ relay: { '25': s }, gate: {} });
    expect(line).toBe(
      'hops at 25 %, relay (0 calls), p50 (p90) ms: validated – (–), authorized – (–), ' +
        'cleared – (–), commands – (–), results – (–), observations – (–); ' +
        'sent → observation – (–)',
    );
  });
});

describe('hopTopicsOf', () => {
  it('names every topic a call goes through, each tool’s commands, each tenant’s observations and the confirmations', () => {
    const topics = hopTopicsOf({
      topicPrefix: 'ns.gate.',
      tools: ['search', 'refund'],
      tenants: ['acme', 'globex'],
    });
    expect(topics).toContainEqual({ name: 'ns.gate.toolgate.proposals', hop: 'proposals' });
    expect(topics).toContainEqual({ name: 'ns.gate.toolgate.commands.refund', hop: 'commands' });
    expect(topics).toContainEqual({
      name: 'ns.gate.toolgate.observations.globex',
      hop: 'observations',
    });
    expect(topics).toContainEqual({ name: 'ns.gate.toolgate.confirmations', hop: 'confirmations' });
    expect(topics.filter((t) => t.hop === 'commands')).toHaveLength(2);
    expect(topics.filter((t) => t.hop === 'observations')).toHaveLength(2);
    expect(topics).toHaveLength(10);
  });
});
