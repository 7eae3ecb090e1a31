import { describe, expect, it } from 'vitest';
import { partitionCount, sortedAssignment } from './group-membership.js';

describe('sortedAssignment', () => {
  it('sorts topics by name and partitions by number, leaving out topics with none', () => {
    const sorted = sortedAssignment({
      'b.cleared': [4, 0, 2],
      'a.results': [],
      'a.approvals': [1],
    });
    expect(sorted).toEqual({ 'a.approvals': [1], 'b.cleared': [0, 2, 4] });
    expect(Object.keys(sorted)).toEqual(['a.approvals', 'b.cleared']);
  });
});

describe('partitionCount', () => {
  it('counts the partitions of every topic', () => {
    expect(partitionCount({ a: [0, 1], b: [3] })).toBe(3);
    expect(partitionCount({})).toBe(0);
  });
});
