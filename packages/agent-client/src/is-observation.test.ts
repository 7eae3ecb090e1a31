import { describe, expect, it } from 'vitest';
import { isObservation, isTerminal } from './is-observation.js';

const valid = {
  proposalId: 'p-1',
  runId: 'run-1',
  requestId: 'req-1',
  outcome: 'rejected',
  disposition: 'repair',
  stage: 'representation',
  code: 'invalid_json',
  message: 'The tool call arguments are not valid JSON.',
  repair: { attempt: 1, remaining: 1, prompt: 'Send a corrected call.' },
  at: '2026-11-29T20:00:00.000Z',
};

describe('isObservation', () => {
  it('accepts an observation the gate writes', () => {
    expect(isObservation(valid)).toBe(true);
  });

  it.each([
    ['no proposalId', { ...valid, proposalId: undefined }],
    ['an empty runId', { ...valid, runId: '' }],
    ['an unknown outcome', { ...valid, outcome: 'done' }],
    ['a repair offer without a prompt', { ...valid, repair: { attempt: 1, remaining: 1 } }],
    ['a list', [valid]],
    ['null', null],
  ])('rejects a record with %s', (_, value) => {
    expect(isObservation(value)).toBe(false);
  });
});

describe('isTerminal', () => {
  it('holds for every outcome but pending_confirmation', () => {
    const of = (outcome: string) => isTerminal({ ...valid, outcome } as never);
    expect(['result', 'rejected', 'expired', 'unknown_outcome'].map(of)).toEqual([
      true,
      true,
      true,
      true,
    ]);
    expect(of('pending_confirmation')).toBe(false);
  });
});
