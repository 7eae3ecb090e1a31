import { beforeAll, describe, expect, it } from 'vitest';
import { buildMix } from './build-mix.js';
import { createBillingBench, type BillingBench } from './create-billing-bench.js';
import { rungsOf, stageRungs, uncachedVerifyRung, type RungInputs } from './stage-rungs.js';

const mix = buildMix({ size: 300, seed: 20261129 });
const count = (predicate: (label: string) => boolean) =>
  mix.filter((e) => predicate(e.label)).length;
let bench: BillingBench;
let inputs: RungInputs;

beforeAll(async () => {
  bench = await createBillingBench();
  inputs = await stageRungs(mix, bench);
});

describe('stageRungs', () => {
  it('stops each proposal at the rung that refuses it', () => {
    expect(inputs.verify).toHaveLength(mix.length);
    const bareMalformed = mix.filter(
      (e) => e.label === 'malformed_json' && e.proposal.format === 'action-json',
    ).length;
    // The bare format's text is parsed whole by its normalizer, so it fails one rung earlier.
    expect(inputs.parse).toHaveLength(mix.length - bareMalformed);
    expect(inputs.schema).toHaveLength(mix.length - count((l) => l === 'malformed_json'));
    const pastSchema = ['malformed_json', 'unknown_tool', 'missing_field'];
    expect(inputs.semantics).toHaveLength(mix.length - count((l) => pastSchema.includes(l)));
    expect(inputs.resolve).toHaveLength(
      inputs.semantics.length - count((l) => l === 'empty_query'),
    );
    expect(inputs.authorize).toHaveLength(
      inputs.resolve.length - count((l) => l === 'other_tenant'),
    );
    expect(inputs.confirm).toHaveLength(
      inputs.authorize.length - count((l) => l === 'viewer_write'),
    );
    const confirmed = count((l) => l === 'refund' || l === 'send_email');
    expect(inputs.command).toHaveLength(inputs.confirm.length - confirmed);
  });

  it('marks only the retried writes as answered without a new command', () => {
    expect(inputs.command.filter((c) => !c.build)).toHaveLength(count((l) => l === 'write_retry'));
  });
});

describe('rungsOf', () => {
  it('passes on every staged input except those the rung itself refuses', async () => {
    const passes = new Map<string, number>();
    for (const rung of rungsOf(inputs, bench.gate)) passes.set(rung.name, await rung.pass());
    expect(passes.get('verify (cached)')).toBe(mix.length);
    expect(passes.get('checkSemantics')).toBe(
      inputs.semantics.length - count((l) => l === 'empty_query'),
    );
    expect(passes.get('authorizeCall (Cedar)')).toBe(
      inputs.authorize.length - count((l) => l === 'viewer_write'),
    );
    expect(passes.get('planConfirmation')).toBe(count((l) => l === 'refund' || l === 'send_email'));
    expect(passes.get('identityOf + buildCommand')).toBe(inputs.command.length);
  });

  it('verifies the same tokens without the cache', async () => {
    expect(await uncachedVerifyRung(inputs, bench).pass()).toBe(mix.length);
  });
});
