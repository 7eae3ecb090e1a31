/**
 * Runs the mix once through the ladder and compares every answer with what its recipe expects, so
 * that a change in the example or the core cannot make the benchmark time the wrong paths.
 */
import { createEvaluationState, evaluate, type Evaluation } from '@toolgate/shared';
import type { Expected, MixEntry } from './build-mix.js';
import { arrivalsOf, type BillingBench } from './create-billing-bench.js';

/** One entry whose answer differs from its recipe's. */
export interface Mismatch {
  readonly proposalId: string;
  readonly label: string;
  readonly expected: string;
  readonly actual: string;
}

/** Every mismatch of one pass (with a fresh evaluation state, as each timed pass has). */
export async function checkMix(mix: readonly MixEntry[], bench: BillingBench): Promise<Mismatch[]> {
  const state = createEvaluationState();
  const arrivals = arrivalsOf(mix);
  const mismatches: Mismatch[] = [];
  for (const [i, entry] of mix.entries()) {
    const input = { session: bench.tokens[entry.user], proposal: entry.proposal };
    const actual = describe(await evaluate(input, bench.gate, state, arrivals[i] ?? new Date(0)));
    const expected = describeExpected(entry.expected);
    if (actual !== expected)
      mismatches.push({
        proposalId: entry.proposal.proposalId,
        label: entry.label,
        expected,
        actual,
      });
  }
  return mismatches;
}

function describe(e: Evaluation): string {
  switch (e.kind) {
    case 'execute':
      return e.replay ? 'execute (replay)' : 'execute';
    case 'confirm':
      return 'confirm';
    case 'refused':
      return `refused ${e.rejected.stage}/${e.rejected.code}`;
  }
}

function describeExpected(e: Expected): string {
  switch (e.kind) {
    case 'execute':
      return e.replay ? 'execute (replay)' : 'execute';
    case 'confirm':
      return 'confirm';
    case 'refused':
      return `refused ${e.stage}/${e.code}`;
  }
}
