/**
 * The confirm stage: consumes authorized envelopes and approvals; clears calls that need no person
 * or that a person approved, parks the others in Redis with a confirmation request, sweeps the
 * expired ones, and serves the approval API on its HTTP port.
 */
import {
  Fault,
  repeatEvery,
  stageLoopOptions,
  startStageLoop,
  type Incoming,
  type Outgoing,
  type Route,
  type RunningStage,
  type StageDepsWith,
  type StageLoop,
} from '@toolgate/platform';
import { createMessageChecker } from '@toolgate/shared';
import { approvalRoutes } from './approval-routes.js';
import { createApprovalHandler } from './handle-approval.js';
import { createAuthorizedHandler } from './handle-authorized.js';
import { createExpirySweeper } from './sweep-expired.js';

/** The stage's name everywhere: folder, package, consumer group, log field. */
export const STAGE = 'confirm' as const;

/** How often the expiry sweeper runs, in ms. */
export const SWEEP_INTERVAL_MS = 1000;

// The approval API writes through the running stage's producer; routes() gets the same deps.
const loops = new WeakMap<StageDepsWith<'confirmations'>, StageLoop>();

/** Starts the confirm stage and its expiry sweeper on `deps`; resolves once it is consuming. */
export async function start(deps: StageDepsWith<'confirmations'>): Promise<RunningStage> {
  const { topics } = deps.outputs;
  const onAuthorized = createAuthorizedHandler(deps, createMessageChecker());
  const onApproval = createApprovalHandler(deps);
  const loop = await startStageLoop({
    ...stageLoopOptions(STAGE, deps),
    topics: [
      { name: topics.authorized, plainJsonAllowed: false },
      { name: topics.approvals, plainJsonAllowed: true },
    ],
    handle: (msg: Incoming) => (msg.topic === topics.approvals ? onApproval : onAuthorized)(msg),
  });
  loops.set(deps, loop);
  const sweeper = createExpirySweeper({
    ...deps,
    produce: (outgoing) => loop.produceTransactional(outgoing),
  });
  const sweeping = repeatEvery(
    SWEEP_INTERVAL_MS,
    () => sweeper.sweepOnce(),
    (error) =>
      deps.logger.warn(
        { err: error },
        'expiry sweep failed; claimed confirmations return after their lease',
      ),
  );
  return {
    stage: STAGE,
    ready: () => loop.ready(),
    membership: () => loop.membership(),
    stop: async () => {
      loops.delete(deps);
      await sweeping.stop();
      await loop.stop();
    },
  };
}

/**
 * The approval API: `GET /pending`, `GET /decided`, `POST /confirmations/:id/approve`, `/reject`
 * and `/amend`.
 */
export function routes(deps: StageDepsWith<'confirmations'>): readonly Route[] {
  return approvalRoutes(deps, (outgoing: readonly Outgoing[]) => {
    const loop = loops.get(deps);
    if (loop === undefined) {
      throw new Fault('stage_not_running', 'the confirm stage is not running');
    }
    return loop.produceTransactional(outgoing);
  });
}
