/**
 * The deployment the benchmark's gate runs: the billing example unchanged, except that the
 * per-tenant and per-user rate ceilings (default 100 and 50 calls/s) and the repair budget
 * ({@link MIX_REPAIR_BUDGET}) are lifted. The mix has two tenants, and the benchmark offers far
 * more than 200 calls/s, so the default would turn the measurement into a measurement of
 * `limits/rate_limited`. The counters are still kept in Redis on every call.
 */
import { defineDeployment } from '@toolgate/shared';
import { MIX_REPAIR_BUDGET } from '../core/build-mix.js';
import { billingDeployment } from '../../examples/billing/toolgate.config.js';

/**
 * The benchmark runs the example as a demo: its published secret, unless TOOLGATE_SESSION_SECRET
 * names another (the benchmark's processes all load this file, so they agree on it).
 */
const example = billingDeployment({ ...process.env, TOOLGATE_DEMO_SESSIONS: '1' });

export default defineDeployment({
  ...example,
  ceilings: {
    ...example.ceilings,
    callsPerTenantPerSecond: 1_000_000,
    callsPerUserPerSecond: 1_000_000,
    repairAttempts: MIX_REPAIR_BUDGET,
  },
});
