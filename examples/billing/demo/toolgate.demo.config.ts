/**
 * The demo's deployment: the billing example with two ceilings made small enough to be met within
 * a short run, so that `npm start` can show them, and a longer tool timeout, so that a command the
 * walk-around holds pending outlasts a loaded machine. Everything else (tools, tenants, workers,
 * policies, sessions, seed objects) is the example's.
 *
 *   npx toolgate start <stage> --config examples/billing/demo/toolgate.demo.config.ts
 */
import { defineDeployment } from '@toolgate/shared';
import example from '../toolgate.config.js';

/** How long a confirmation waits for a person in the demo, in seconds (the example: 30 min). */
export const DEMO_CONFIRMATION_TTL_SECONDS = 10;

/** Tool calls one run may make in the demo (the default ceiling is 50). */
export const DEMO_CALLS_PER_RUN = 12;

/**
 * How long a tool may take in the demo, in ms (the default ceiling is 10 000): the walk-around
 * holds the tool worker still while it forges a result for a pending command, and the command's
 * deadline must not pass meanwhile.
 */
export const DEMO_TOOL_TIMEOUT_MS = 30_000;

export default defineDeployment({
  ...example,
  name: 'billing-demo',
  confirmationTtlSeconds: DEMO_CONFIRMATION_TTL_SECONDS,
  ceilings: {
    ...example.ceilings,
    callsPerRun: DEMO_CALLS_PER_RUN,
    toolTimeoutMs: DEMO_TOOL_TIMEOUT_MS,
  },
});
