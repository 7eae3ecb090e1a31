import { describe, expect, it } from 'vitest';
import { proposalIdInBytes } from './judge-run.js';

describe('proposalIdInBytes', () => {
  it('reads the proposalId of quarantined bytes that still name one', () => {
    expect(proposalIdInBytes('{"proposalId":"p-1","runId":"r"}')).toBe('p-1');
    // A wire-format header before the JSON.
    expect(proposalIdInBytes('\u0000\u0000\u0000\u0000\u0007{"proposalId":"p-2"}')).toBe('p-2');
    // Cut short, or with a duplicate key elsewhere: the first one named in the text.
    expect(proposalIdInBytes('{"runId":"r","proposalId" : "p-\\"3\\"","call":{"a":1,')).toBe(
      'p-"3"',
    );
  });

  it('finds none in bytes that name no proposal', () => {
    expect(proposalIdInBytes('not json at all')).toBeUndefined();
    expect(proposalIdInBytes('{"runId":"r"}')).toBeUndefined();
    expect(proposalIdInBytes('{"proposalId":7}')).toBeUndefined();
    expect(proposalIdInBytes(undefined)).toBeUndefined();
  });
});
