import { beforeAll, describe, expect, it } from 'vitest';
import { buildMix, type MixEntry } from './build-mix.js';
import { checkMix } from './check-mix.js';
import { createBillingBench, type BillingBench } from './create-billing-bench.js';

let bench: BillingBench;
const mix = buildMix({ size: 300, seed: 20261129 });

beforeAll(async () => {
  bench = await createBillingBench();
});

describe('checkMix on the billing example', () => {
  it('finds every proposal of the mix answered as its recipe says', async () => {
    expect(await checkMix(mix, bench)).toEqual([]);
  });

  it('reports an entry whose expectation the ladder does not meet', async () => {
    const read = mix.find((e) => e.label === 'search');
    if (read === undefined) throw new Error('the mix has no search');
    const wrong: MixEntry = { ...read, expected: { kind: 'confirm' } };
    expect(await checkMix([wrong], bench)).toEqual([
      {
        proposalId: read.proposal.proposalId,
        label: 'search',
        expected: 'confirm',
        actual: 'execute',
      },
    ]);
  });
});
