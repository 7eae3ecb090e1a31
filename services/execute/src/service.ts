/**
 * The execute stage: consumes cleared envelopes (tagged, wire format) and tool results (wire
 * format or plain JSON), publishes each command once per idempotency key to its tool's topic, and
 * ends every command with one terminal observation: its checked result, a replay of a finished
 * call, or an unknown outcome when the deadline sweeper finds the tool silent. The two halves can
 * run as separate processes (TOOLGATE_EXECUTE_INPUTS), as the relay's hop4 and observation hop do.
 */
import {
  EXECUTE_INPUTS,
  stageLoopOptions,
  startStageLoop,
  type ExecuteInputs,
  type Incoming,
  type Outgoing,
  type RunningStage,
  type StageDepsWith,
} from '@toolgate/platform';
import { createMessageChecker } from '@toolgate/shared';
import { CommandsInFlight } from './commands-in-flight.js';
import { createClearedHandler } from './handle-cleared.js';
import { createResultHandler } from './handle-result.js';
import { startDeadlineSweeper } from './sweep-deadlines.js';
import { watchResultsConsumed } from './watch-results-consumed.js';

export { watchResultsConsumed } from './watch-results-consumed.js';

/** The stage's name everywhere: folder, package, consumer group, log field. */
export const STAGE = 'execute' as const;

/**
 * Starts the execute stage on `deps`, consuming what `TOOLGATE_EXECUTE_INPUTS` says: cleared
 * envelopes, tool results, or both; the deadline sweeper runs where results are settled. Every
 * execute process joins the one group, `toolgate.execute`, whose assigner gives each partition to
 * one member subscribed to its topic: whatever mix runs, each envelope and each result is handled
 * by one member. Resolves once it is consuming.
 */
export async function start(
  deps: StageDepsWith<'idempotency' | 'pendingCommands'>,
): Promise<RunningStage> {
  const inputs = inputsOf(deps.config.executeInputs);
  const { topics } = deps.outputs;
  // The pending commands this instance issued, for settling their results in one round trip; an
  // instance that settles no results keeps none.
  const inFlight = new CommandsInFlight(inputs === 'cleared' ? 0 : undefined);
  const cleared = createClearedHandler(deps, inFlight);
  const result = createResultHandler(deps, createMessageChecker(), inFlight);
  const handle = (msg: Incoming, release: () => void): Promise<readonly Outgoing[]> => {
    if (msg.topic === topics.cleared) return cleared(msg, release);
    // Each result settles its own command, so a run's results need not wait for each other.
    release();
    return result(msg);
  };
  const base = stageLoopOptions(STAGE, deps);
  const loop = await startStageLoop({
    ...base,
    topics: [
      ...(inputs === 'results' ? [] : [{ name: topics.cleared, plainJsonAllowed: false }]),
      ...(inputs === 'cleared' ? [] : [{ name: topics.results, plainJsonAllowed: true }]),
    ],
    handle,
  });
  const sweeper =
    inputs === 'cleared'
      ? undefined
      : startDeadlineSweeper({
          deps,
          produce: (outgoing) => loop.produceTransactional(outgoing),
          inFlight,
        });
  // Where results are not settled, make sure that some other process settles them.
  const watch =
    inputs === 'cleared'
      ? watchResultsConsumed({
          bus: deps.bus,
          logger: deps.logger,
          metrics: deps.metrics,
          groupId: base.groupId,
          resultsTopic: topics.results,
        })
      : undefined;
  return {
    stage: STAGE,
    ready: () => loop.ready(),
    membership: () => loop.membership(),
    stop: async () => {
      await watch?.stop();
      await sweeper?.stop();
      await loop.stop();
    },
  };
}

/** The configured inputs; loadConfig has checked the value against {@link EXECUTE_INPUTS}. */
function inputsOf(value: string): ExecuteInputs {
  const found = EXECUTE_INPUTS.find((inputs) => inputs === value);
  if (found === undefined) throw new TypeError(`unknown execute inputs "${value}"`);
  return found;
}
