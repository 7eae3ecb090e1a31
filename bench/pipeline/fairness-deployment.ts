/**
 * The deployment of the fairness scenario (`npm run bench -- --fairness`): the billing example,
 * run as a demo as the benchmark's own deployment is, with every tenant's rate ceiling at the
 * scenario's (`FAIRNESS.tenantCeilingPerSecond`), low enough that ten times it stays within what a
 * 2-core machine's gate can take. The per-user ceiling stays the example's.
 */
import { defineDeployment } from '@toolgate/shared';
import { billingDeployment } from '../../examples/billing/toolgate.config.js';
import { FAIRNESS } from './fairness.js';

const example = billingDeployment({ ...process.env, TOOLGATE_DEMO_SESSIONS: '1' });

export default defineDeployment({
  ...example,
  ceilings: { ...example.ceilings, callsPerTenantPerSecond: FAIRNESS.tenantCeilingPerSecond },
});
