/**
 * The execute stage: consumes cleared envelopes (tagged, wire format) and tool results (wire
 * format or plain JSON), publishes each command once per idempotency key to its tool's topic, and
 * ends every command with one terminal observation: its checked result, a replay of a finished
 * call, or an unknown outcome when the deadline sweeper finds the tool silent.
 */
import {
  fatalOutputs,
  loopMetrics,
  startStageLoop,
  stageGroup,
  type Incoming,
  type Outgoing,
  type RunningStage,
  type StageDeps,
} from '@toolgate/platform';
import { createMessageChecker } from '@toolgate/shared';
import { CommandsInFlight } from './commands-in-flight.js';
import { createClearedHandler } from './handle-cleared.js';
import { createResultHandler } from './handle-result.js';
import { startDeadlineSweeper } from './sweep-deadlines.js';

/** The stage's name everywhere: folder, package, consumer group, log field. */
export const STAGE = 'execute' as const;

/** Starts the execute stage and its deadline sweeper on `deps`; resolves once it is consuming. */
export async function start(deps: StageDeps): Promise<RunningStage> {
  const { topics } = deps.outputs;
  // The pending commands this instance issued, for settling their results in one round trip.
  const inFlight = new CommandsInFlight();
  const cleared = createClearedHandler(deps, inFlight);
  const result = createResultHandler(deps, createMessageChecker(), inFlight);
  const handle = (msg: Incoming, release: () => void): Promise<readonly Outgoing[]> => {
    if (msg.topic === topics.cleared) return cleared(msg, release);
    // Each result settles its own command, so a run's results need not wait for each other.
    release();
    return result(msg);
  };
  const loop = await startStageLoop({
    stage: STAGE,
    groupId: stageGroup(deps.config.groupPrefix, STAGE),
    topics: [
      { name: topics.cleared, plainJsonAllowed: false },
      { name: topics.results, plainJsonAllowed: true },
    ],
    bus: deps.bus,
    codec: deps.codec,
    logger: deps.logger,
    instanceId: deps.config.instanceId,
    handle,
    onFatal: (msg, error) => fatalOutputs(STAGE, msg, error, deps.outputs, deps.now()),
    metrics: loopMetrics(deps.metrics),
  });
  const sweeper = startDeadlineSweeper({
    deps,
    produce: (outgoing) => loop.produceTransactional(outgoing),
    inFlight,
  });
  return {
    stage: STAGE,
    ready: () => loop.ready(),
    stop: async () => {
      await sweeper.stop();
      await loop.stop();
    },
  };
}
