/**
 * The validate stage: consumes proposals (Confluent wire format or plain JSON), publishes
 * validated envelopes, and answers every refusal with an observation and an audit event.
 */
import {
  fatalOutputs,
  fetchOptions,
  loopMetrics,
  startStageLoop,
  stageGroup,
  type RunningStage,
  type StageDeps,
} from '@toolgate/platform';
import { createProposalHandler } from './handle-proposal.js';

/** The stage's name everywhere: folder, package, consumer group, log field. */
export const STAGE = 'validate' as const;

/** Starts the validate stage on `deps`; resolves once it is consuming. */
export async function start(deps: StageDeps): Promise<RunningStage> {
  const loop = await startStageLoop({
    stage: STAGE,
    groupId: stageGroup(deps.config.groupPrefix, STAGE),
    topics: [{ name: deps.outputs.topics.proposals, plainJsonAllowed: true }],
    bus: deps.bus,
    codec: deps.codec,
    logger: deps.logger,
    instanceId: deps.config.instanceId,
    ...fetchOptions(deps.config),
    handle: createProposalHandler(deps),
    onFatal: (msg, error) => fatalOutputs(STAGE, msg, error, deps.outputs, deps.now()),
    metrics: loopMetrics(deps.metrics),
  });
  return { stage: STAGE, ready: () => loop.ready(), stop: () => loop.stop() };
}
