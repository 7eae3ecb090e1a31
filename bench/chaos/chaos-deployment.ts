/**
 * The deployment a chaos run's gate runs: the benchmark's (the billing example with its rate
 * ceilings lifted), with confirmations that expire after {@link CHAOS_CONFIRMATION_TTL_SECONDS}
 * rather than half an hour, so the requests the scripted approver leaves unanswered expire while
 * the run still watches.
 */
import { defineDeployment } from '@toolgate/shared';
import bench from '../pipeline/bench-deployment.js';
import { CHAOS_CONFIRMATION_TTL_SECONDS } from './chaos-options.js';

export default defineDeployment({
  ...bench,
  confirmationTtlSeconds: CHAOS_CONFIRMATION_TTL_SECONDS,
});
