/**
 * Reproduces a V8 fatal error ("unreachable code" in Deoptimizer::DoComputeBuiltinContinuation)
 * that aborted the first runs of bench:core on Node 20.20.2 (V8 11.3). TurboFan inlines
 * `cedar.statefulIsAuthorized` and the JS-to-Wasm call inside it into `decideOne`
 * (packages/shared/src/authz/cedar-decide.ts). While Cedar runs, its glue calls back into JS
 * (JSON.stringify of the request, JSON.parse of the answer). When that invalidates code
 * `decideOne` depends on, V8 must lazily deoptimize `decideOne` while the inlined Wasm call is
 * still on the stack, and it aborts the process instead. This is a crash of the process, not an
 * exception: nothing in the gate can catch it.
 *
 *   node --import tsx bench/core/v8-crash-repro.ts                                 # aborts
 *   node --no-turbo-inline-js-wasm-calls --import tsx bench/core/v8-crash-repro.ts # completes
 *
 * The sequence matters (it took the baseline, the ladder and the session checks first, then
 * Cedar alone); each step is a plain loop over the benchmark's mix for two seconds.
 */
import { authorizeCall, createEvaluationState, evaluate } from '@toolgate/shared';
import { TOOLS } from '../../examples/billing/tools.js';
import { buildMix } from './build-mix.js';
import { createBaseline } from './create-baseline.js';
import { arrivalsOf, createBillingBench } from './create-billing-bench.js';
import { stageRungs } from './stage-rungs.js';

const mix = buildMix({ size: 500, seed: 20261129 });
const bench = await createBillingBench();
const arrivals = arrivalsOf(mix);
const inputs = await stageRungs(mix, bench);
const check = createBaseline(TOOLS);

async function forTwoSeconds(name: string, pass: () => unknown) {
  console.log(name);
  const end = Date.now() + 2000;
  while (Date.now() < end) await pass();
}

await forTwoSeconds('JSON.parse + ajv', () => mix.forEach((e) => check(e.baseline)));
await forTwoSeconds('evaluate', async () => {
  const state = createEvaluationState();
  for (const [i, e] of mix.entries()) {
    const input = { session: bench.tokens[e.user], proposal: e.proposal };
    await evaluate(input, bench.gate, state, arrivals[i] ?? new Date(0));
  }
});
await forTwoSeconds('session checks', async () => {
  for (const { token, now } of inputs.verify) await bench.gate.verifier.verify(token, now);
});
await forTwoSeconds('authorizeCall', () => {
  for (const request of inputs.authorize) authorizeCall(request, bench.gate.policies);
});
console.log('completed without a crash');
