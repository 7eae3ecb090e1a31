/**
 * The deployment of the fairness scenario (`npm run bench -- --fairness`): the billing example
 * with every tenant's rate ceiling at the scenario's (`FAIRNESS.tenantCeilingPerSecond`), low
 * enough that ten times it stays within what a 2-core machine's gate can take.
 */
import { defineDeployment } from '@toolgate/shared';
import example from '../../examples/billing/toolgate.config.js';
import { FAIRNESS } from './fairness.js';

export default defineDeployment({
  ...example,
  ceilings: { ...example.ceilings, callsPerTenantPerSecond: FAIRNESS.tenantCeilingPerSecond },
});
