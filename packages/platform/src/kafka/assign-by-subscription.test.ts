import { describe, expect, it } from 'vitest';
import { assignBySubscription } from './assign-by-subscription.js';

const SIX = [0, 1, 2, 3, 4, 5];
const partitions = new Map([
  ['cleared', SIX],
  ['results', SIX],
]);

const plain = (assignment: ReturnType<typeof assignBySubscription>) =>
  Object.fromEntries([...assignment].map(([member, topics]) => [member, topics]));

describe('assignBySubscription', () => {
  it('gives each topic only to the members subscribed to it', () => {
    const assigned = assignBySubscription(
      [
        { memberId: 'a', topics: ['cleared'] },
        { memberId: 'b', topics: ['results'] },
      ],
      partitions,
    );
    expect(plain(assigned)).toEqual({ a: { cleared: SIX }, b: { results: SIX } });
  });

  it('spreads a shared topic over its members, and evens out members of several topics', () => {
    const assigned = assignBySubscription(
      [
        { memberId: 'both', topics: ['cleared', 'results'] },
        { memberId: 'c', topics: ['cleared'] },
        { memberId: 'r', topics: ['results'] },
      ],
      partitions,
    );
    expect(plain(assigned)).toEqual({
      both: { cleared: [0, 2, 4], results: [3, 5] },
      c: { cleared: [1, 3, 5] },
      r: { results: [0, 1, 2, 4] },
    });
  });

  it('assigns every partition exactly once, whatever order the members come in', () => {
    const members = [
      { memberId: 'm3', topics: ['results'] },
      { memberId: 'm1', topics: ['cleared', 'results'] },
      { memberId: 'm2', topics: ['cleared'] },
    ];
    const forward = plain(assignBySubscription(members, partitions));
    expect(plain(assignBySubscription([...members].reverse(), partitions))).toEqual(forward);
    for (const topic of ['cleared', 'results']) {
      const held = Object.values(forward).flatMap((topics) => topics[topic] ?? []);
      expect(held.sort()).toEqual(SIX);
    }
  });

  it('leaves out a topic nobody subscribed to, and a member with nothing to take', () => {
    const assigned = assignBySubscription(
      [
        { memberId: 'a', topics: ['cleared'] },
        { memberId: 'idle', topics: ['elsewhere'] },
      ],
      partitions,
    );
    expect(plain(assigned)).toEqual({ a: { cleared: SIX } });
  });
});
