/**
 * The authorize stage: consumes validated envelopes (integrity-tagged, wire format only), resolves
 * the objects they name under the caller's tenant, counts the call, and publishes authorized
 * envelopes, or answers the refusal with an observation and an audit event.
 */
import { stageLoopOptions, startStageLoop, type RunningStage } from '@toolgate/platform';
import { createValidatedHandler, type ValidatedDeps } from './handle-validated.js';

/** The stage's name everywhere: folder, package, consumer group, log field. */
export const STAGE = 'authorize' as const;

/** Starts the authorize stage on `deps`; resolves once it is consuming. */
export async function start(deps: ValidatedDeps): Promise<RunningStage> {
  const loop = await startStageLoop({
    ...stageLoopOptions(STAGE, deps),
    // An internal topic: only the gate writes it, always in the wire format.
    topics: [{ name: deps.outputs.topics.validated, plainJsonAllowed: false }],
    handle: createValidatedHandler(deps),
  });
  return {
    stage: STAGE,
    ready: () => loop.ready(),
    membership: () => loop.membership(),
    stop: () => loop.stop(),
  };
}
