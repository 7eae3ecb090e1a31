/**
 * The ladder end to end: `evaluate()` on every proposal of the mix, in order, each timed alone.
 * Every pass starts a fresh `EvaluationState`, as a fresh run would: the writes of a pass have
 * unique call ids, so the only replays are the mix's deliberate client retries, and the call
 * counters never reach a ceiling.
 */
import { createEvaluationState, evaluate, type Evaluation } from '@toolgate/shared';
import { GROUPS, type Group, type MixEntry } from './build-mix.js';
import { arrivalsOf, type BillingBench } from './create-billing-bench.js';
import type { Pass } from './time-slice.js';

/** Per-proposal durations in nanoseconds, by group; recorded only while `recording` is true. */
export interface LatencyRecorder {
  recording: boolean;
  readonly samples: Readonly<Record<Group, number[]>>;
}

/** An empty recorder, not yet recording (warm-up passes are not kept). */
export function createLatencyRecorder(): LatencyRecorder {
  const samples = Object.fromEntries(GROUPS.map((g) => [g, []])) as unknown as Record<
    Group,
    number[]
  >;
  return { recording: false, samples };
}

/** One pass of the ladder over `mix`; the count it returns is the number of commands issued. */
export function ladderPass(
  mix: readonly MixEntry[],
  bench: BillingBench,
  recorder: LatencyRecorder,
): Pass {
  const arrivals = arrivalsOf(mix);
  const inputs = mix.map((e) => ({ session: bench.tokens[e.user], proposal: e.proposal }));
  return async () => {
    const state = createEvaluationState();
    let commands = 0;
    for (let i = 0; i < inputs.length; i += 1) {
      const start = process.hrtime.bigint();
      const outcome: Evaluation = await evaluate(inputs[i]!, bench.gate, state, arrivals[i]!);
      const ns = Number(process.hrtime.bigint() - start);
      if (recorder.recording) recorder.samples[mix[i]!.group].push(ns);
      if (outcome.kind === 'execute') commands += 1;
    }
    return commands;
  };
}
