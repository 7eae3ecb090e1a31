/**
 * The demo's deployment: the billing example with two ceilings made small enough to be met within
 * a short run, so that `npm start` can show them. Everything else (tools, policies, sessions,
 * seed objects) is the example's.
 *
 *   npx toolgate start all --config examples/billing/demo/toolgate.demo.config.ts
 */
import { defineDeployment } from '@toolgate/shared';
import example from '../toolgate.config.js';

/** How long a confirmation waits for a person in the demo, in seconds (the example: 30 min). */
export const DEMO_CONFIRMATION_TTL_SECONDS = 10;

/** Tool calls one run may make in the demo (the default ceiling is 50). */
export const DEMO_CALLS_PER_RUN = 12;

export default defineDeployment({
  ...example,
  name: 'billing-demo',
  confirmationTtlSeconds: DEMO_CONFIRMATION_TTL_SECONDS,
  ceilings: { ...example.ceilings, callsPerRun: DEMO_CALLS_PER_RUN },
});
