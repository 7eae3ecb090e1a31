/**
 * The test deployment must load as a gate loads it (tools, policies against their schema,
 * sessions, ceilings), or every test that starts a gate on it fails for a reason of its own.
 */
import { createGate } from '@toolgate/shared';
import { describe, expect, it } from 'vitest';
import { SEED_OBJECTS, TEST_DEPLOYMENT, USERS } from './index.js';

describe('the test deployment', () => {
  it('loads as a gate, every tool run by a worker', () => {
    const gate = createGate(TEST_DEPLOYMENT);
    expect(gate.registry.list().map((t) => t.name)).toEqual(
      TEST_DEPLOYMENT.tools.map((t) => t.name),
    );
    const run = TEST_DEPLOYMENT.workers?.flatMap((w) => w.tools) ?? [];
    expect(run.sort()).toEqual(TEST_DEPLOYMENT.tools.map((t) => t.name).sort());
  });

  it('has its users and objects only in its own tenants', () => {
    const tenants = new Set(TEST_DEPLOYMENT.tenants);
    for (const user of Object.values(USERS)) expect(tenants.has(user.tenant)).toBe(true);
    for (const object of SEED_OBJECTS) expect(tenants.has(object.tenant)).toBe(true);
  });
});
