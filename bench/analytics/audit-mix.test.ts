import { AUDIT_KINDS } from '@toolgate/shared';
import { describe, expect, it } from 'vitest';
import { MIX_WEIGHTS } from '../core/build-mix.js';
import {
  auditEventsPerProposal,
  createAuditMix,
  gateSaturationAuditRate,
  MIX_TENANTS,
} from './audit-mix.js';

const AT = new Date('2026-12-07T12:00:00.000Z');

describe('createAuditMix', () => {
  it('gives the same events for the same seed, and others for another', () => {
    const a = createAuditMix(7).nextEvents(500, AT);
    const b = createAuditMix(7).nextEvents(500, AT);
    const c = createAuditMix(8).nextEvents(500, AT);
    expect(a).toEqual(b);
    expect(c.map((e) => e.eventId)).not.toEqual(a.map((e) => e.eventId));
  });

  it('writes whole proposals, each event stamped with the given time and a known kind', () => {
    const events = createAuditMix(1).nextEvents(101, AT);
    expect(events.length).toBeGreaterThanOrEqual(101);
    expect(events.length).toBeLessThanOrEqual(104);
    for (const e of events) {
      expect(e.at).toBe(AT.toISOString());
      expect(Object.keys(AUDIT_KINDS)).toContain(e.kind);
    }
    // The last proposal is complete: an executed call ends with its result.
    const last = events.at(-1);
    expect(['result', 'replay', 'rejected']).toContain(last?.kind);
  });

  it('spreads over several tenants, principals, runs, rungs and codes, with unique event ids', () => {
    const events = createAuditMix(3).nextEvents(5_000, AT);
    const distinct = (f: (e: (typeof events)[number]) => unknown) => new Set(events.map(f)).size;
    expect(distinct((e) => e.tenant)).toBe(Object.keys(MIX_TENANTS).length);
    expect(distinct((e) => e.subject)).toBeGreaterThan(30);
    expect(distinct((e) => e.runId)).toBeGreaterThan(100);
    expect(distinct((e) => e.stage)).toBeGreaterThanOrEqual(8);
    expect(distinct((e) => e.code)).toBeGreaterThanOrEqual(8);
    expect(distinct((e) => e.eventId)).toBe(events.length);
  });

  it('writes as many events per proposal as the ratio says, within sampling error', () => {
    const mix = createAuditMix(5);
    let events = 0;
    for (let i = 0; i < 20_000; i += 1) events += mix.nextProposal(AT).length;
    expect(events / 20_000).toBeCloseTo(auditEventsPerProposal(), 1);
  });
});

describe('auditEventsPerProposal', () => {
  it('is 1.92 for the core mix: 2 per executed call, 4 per confirmed one, 1 per refusal or replay', () => {
    expect(auditEventsPerProposal()).toBeCloseTo(1.92, 10);
    expect(gateSaturationAuditRate()).toBe(793);
  });

  it('follows the weights, and refuses weights that sum to nothing', () => {
    const zero = Object.fromEntries(Object.keys(MIX_WEIGHTS).map((k) => [k, 0]));
    expect(auditEventsPerProposal({ ...zero, search: 1 } as typeof MIX_WEIGHTS)).toBe(2);
    expect(auditEventsPerProposal({ ...zero, refund: 1 } as typeof MIX_WEIGHTS)).toBe(4);
    expect(() => auditEventsPerProposal(zero as typeof MIX_WEIGHTS)).toThrow(/sum to nothing/);
  });
});
