/**
 * The validate stage: consumes proposals (Confluent wire format or plain JSON), counts each
 * authenticated one against the call ceilings, publishes validated envelopes, and answers every
 * refusal with an observation and an audit event.
 */
import { stageLoopOptions, startStageLoop, type RunningStage } from '@toolgate/platform';
import { createProposalHandler, type ProposalDeps } from './handle-proposal.js';

/** The stage's name everywhere: folder, package, consumer group, log field. */
export const STAGE = 'validate' as const;

/** Starts the validate stage on `deps`; resolves once it is consuming. */
export async function start(deps: ProposalDeps): Promise<RunningStage> {
  const loop = await startStageLoop({
    ...stageLoopOptions(STAGE, deps),
    topics: [{ name: deps.outputs.topics.proposals, plainJsonAllowed: true }],
    handle: createProposalHandler(deps),
  });
  return {
    stage: STAGE,
    ready: () => loop.ready(),
    membership: () => loop.membership(),
    stop: () => loop.stop(),
  };
}
