import { describe, expect, it } from 'vitest';
import { SEED_OBJECTS } from '../../examples/billing/data.js';
import { buildMix } from '../core/build-mix.js';
import { withFreshObjects } from './fresh-objects.js';

const SEED_IDS = /\b(inv_481|inv_482|inv_483|inv_900|draft_7|pay_11)(?![a-z0-9])/;

describe('withFreshObjects', () => {
  const mix = buildMix({ size: 3000, seed: 7 });
  const fresh = withFreshObjects(mix, SEED_OBJECTS);
  const text = (i: number) => JSON.stringify(fresh.mix[i]?.proposal);

  it('leaves no proposal naming one of the shared objects, and changes nothing else', () => {
    expect(fresh.mix).toHaveLength(mix.length);
    fresh.mix.forEach((entry, i) => {
      expect(text(i)).not.toMatch(SEED_IDS);
      const original = mix[i];
      expect({ ...entry, proposal: undefined }).toEqual({ ...original, proposal: undefined });
      expect(entry.proposal.proposalId).toBe(original?.proposal.proposalId);
    });
  });

  it("gives each write an invoice of its own, and a retry its original's", () => {
    const writes = fresh.mix.flatMap((e, i) => (e.label === 'approve_small' ? [i] : []));
    const retries = fresh.mix.flatMap((e, i) => (e.label === 'write_retry' ? [i] : []));
    expect(writes.length).toBeGreaterThan(100);
    expect(retries.length).toBeGreaterThan(10);
    for (const i of writes) expect(text(i)).toMatch(new RegExp(`inv_(481|900)c${i}(?![0-9])`));
    let lastWrite = -1;
    fresh.mix.forEach((e, i) => {
      if (e.label === 'write_retry') {
        // The same call as the last write it repeats: the same arguments and call, another id.
        const original = fresh.mix[lastWrite];
        expect({ ...e.proposal, proposalId: '' }).toEqual({
          ...original?.proposal,
          proposalId: '',
        });
      }
      if (e.label === 'approve_small' && e.proposal.format !== 'action-json') lastWrite = i;
    });
  });

  it('lists one copy of each object named, seeded as the object it copies', () => {
    const ids = fresh.objects.map((o) => o.id);
    expect(new Set(ids).size).toBe(ids.length);
    const named = new Set(
      fresh.mix.flatMap((_, i) => text(i).match(/\b(inv|pay|draft)_[0-9]+c[0-9]+\b/g) ?? []),
    );
    expect(new Set(ids)).toEqual(named);
    for (const copy of fresh.objects) {
      // The tools' id pattern still holds.
      expect(copy.id).toMatch(/^(inv|pay|draft)_[a-z0-9]{1,32}$/);
      const original = SEED_OBJECTS.find((o) => copy.id.startsWith(`${o.id}c`));
      expect(copy).toEqual({ ...original, id: copy.id });
    }
  });
});
