import { describe, expect, it } from 'vitest';
import { PROPOSAL_FORMATS } from '@toolgate/shared';
import { buildMix, MIX_WEIGHTS, RUN_LENGTH, type MixEntry } from './build-mix.js';

/** The call id as the gate reads it: the bare format has none, so its proposal id stands in. */
function callIdOf(e: MixEntry): unknown {
  if (e.proposal.format === 'action-json') return e.proposal.proposalId;
  const call = e.proposal.call as Record<string, unknown>;
  return e.proposal.format === 'openai-responses' ? call['call_id'] : call['id'];
}

describe('buildMix', () => {
  const mix = buildMix({ size: 4000, seed: 7 });

  it('builds the same proposals from the same seed and others from another seed', () => {
    expect(buildMix({ size: 200, seed: 7 })).toEqual(mix.slice(0, 200));
    expect(buildMix({ size: 200, seed: 8 })).not.toEqual(mix.slice(0, 200));
  });

  it('draws each kind of proposal in about its share', () => {
    const total = Object.values(MIX_WEIGHTS).reduce((a, b) => a + b, 0);
    for (const [label, weight] of Object.entries(MIX_WEIGHTS)) {
      const share = mix.filter((e) => e.label === label).length / mix.length;
      expect(Math.abs(share - weight / total), label).toBeLessThan(0.02);
    }
  });

  it('sends proposals in all five formats, and malformed JSON only where the model writes text', () => {
    expect(new Set(mix.map((e) => e.proposal.format))).toEqual(new Set(PROPOSAL_FORMATS));
    const malformed = new Set(
      mix.filter((e) => e.label === 'malformed_json').map((e) => e.proposal.format),
    );
    expect(malformed).toEqual(new Set(['openai-chat', 'openai-responses', 'action-json']));
  });

  it('gives every proposal its own id and keeps runs within the call ceiling', () => {
    expect(new Set(mix.map((e) => e.proposal.proposalId)).size).toBe(mix.length);
    const perRun = new Map<string, number>();
    for (const e of mix) perRun.set(e.proposal.runId, (perRun.get(e.proposal.runId) ?? 0) + 1);
    expect(Math.max(...perRun.values())).toBeLessThanOrEqual(RUN_LENGTH + 5);
  });

  it('retries only an earlier write, under its request and call id', () => {
    const retries = mix.filter((e) => e.label === 'write_retry');
    expect(retries.length).toBeGreaterThan(0);
    for (const retry of retries) {
      const original = mix.find(
        (e) =>
          e.label === 'approve_small' &&
          e.proposal.requestId === retry.proposal.requestId &&
          callIdOf(e) === callIdOf(retry),
      );
      expect(original, retry.proposal.proposalId).toBeDefined();
      expect(original!.offsetMs).toBeLessThan(retry.offsetMs);
      expect(retry.expected).toEqual({ kind: 'execute', replay: true });
    }
  });

  it('gives fresh writes call ids that no other proposal uses', () => {
    const writes = mix.filter((e) => e.label === 'approve_small').map(callIdOf);
    expect(new Set(writes).size).toBe(writes.length);
  });
});
