/**
 * The stage-loop options every gate stage passes alike, taken from its deps: its name and group,
 * the connections, the fetch settings, the bound on its stop, its `internal_error` outputs, its
 * metrics and whom to tell when it stops on its own. A stage adds its topics and its handler.
 */
import { fetchOptions, STOP_SHARE, type ServiceStage } from './config.js';
import { fatalOutputs } from './fatal-outputs.js';
import { stageGroup } from './gate-topics.js';
import { loopMetrics } from './metrics.js';
import type { StageDepsWith } from './stage-deps.js';
import type { StageLoopOptions } from './stage-loop.js';

/**
 * The bound on one stage loop's stop when `loops` loops stop one after another within the hard
 * deadline `shutdownTimeoutMs` ({@link STOP_SHARE} of it, split evenly): a stop that hangs
 * (kafkajs leaving the group, a transaction that does not finish) ends with the loop's warning,
 * and whatever closes after it still closes, before the deadline exits the process non-zero.
 */
export function stopBound(shutdownTimeoutMs: number, loops = 1): number {
  return Math.max(1, Math.floor((shutdownTimeoutMs * STOP_SHARE) / Math.max(1, loops)));
}

/** Every option of `stage`'s loop but its topics and handler. */
export function stageLoopOptions(
  stage: ServiceStage,
  deps: StageDepsWith,
): Omit<StageLoopOptions, 'topics' | 'handle'> {
  const { config } = deps;
  return {
    stage,
    groupId: stageGroup(config.groupPrefix, stage),
    bus: deps.bus,
    codec: deps.codec,
    logger: deps.logger,
    instanceId: config.instanceId,
    ...fetchOptions(config),
    sessionTimeoutMs: config.sessionTimeoutMs,
    stopTimeoutMs: deps.stopTimeoutMs ?? stopBound(config.shutdownTimeoutMs),
    onFatal: (msg, error) => fatalOutputs(stage, msg, error, deps.outputs, deps.now()),
    metrics: loopMetrics(deps.metrics),
    ...(deps.onLoopCrash === undefined ? {} : { onCrash: (error) => deps.onLoopCrash?.(error) }),
  };
}
