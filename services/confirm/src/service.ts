/** The confirm stage (being built). */
import type { RunningStage, StageDeps } from '@toolgate/platform';

/** The stage's name everywhere: folder, package, consumer group, log field. */
export const STAGE = 'confirm' as const;

/** Starts the confirm stage on `deps`. */
export function start(deps: StageDeps): Promise<RunningStage> {
  return Promise.reject(
    new Error(`the confirm stage is not built yet (${deps.config.instanceId})`),
  );
}
