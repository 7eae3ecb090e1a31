/** The execute stage (being built). */
import type { RunningStage, StageDeps } from '@toolgate/platform';

/** The stage's name everywhere: folder, package, consumer group, log field. */
export const STAGE = 'execute' as const;

/** Starts the execute stage on `deps`. */
export function start(deps: StageDeps): Promise<RunningStage> {
  return Promise.reject(
    new Error(`the execute stage is not built yet (${deps.config.instanceId})`),
  );
}
