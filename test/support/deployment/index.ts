/**
 * The product tests' own deployment: two tenants, five small tools (one of each kind the gate
 * treats differently), Cedar policies and seed objects. The services' tests run against it, so
 * that changing the billing example changes only the tests whose subject is the example.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { EXAMPLE_WORKER } from '@toolgate/platform';
import { defineDeployment, SCHEMA_SUFFIX } from '@toolgate/shared';
import { SEED_OBJECTS } from './objects.js';
import { TOOLS } from './tools.js';

export { NEVER_PUBLIC, SEED_OBJECTS, USERS } from './objects.js';
export { createTestHandlers } from './handlers.js';
export { TOOLS } from './tools.js';

/** The tests' session secret (HS256). Published here, so it is fit for tests only. */
export const TEST_SESSION_SECRET = 'toolgate-test-deployment-secret-never-deploy-01';

/** The issuer the test deployment requires of every session token. */
export const TEST_SESSION_ISSUER = 'toolgate-tests';

const policyDir = new URL('./policies/', import.meta.url);

/** This deployment's Cedar policies and schema (policies are validated against it at load). */
function policies() {
  return readdirSync(policyDir)
    .filter((f) => f.endsWith('.cedar') || f.endsWith(SCHEMA_SUFFIX))
    .sort()
    .map((name) => ({ name, text: readFileSync(new URL(name, policyDir), 'utf8') }));
}

/** The test deployment. Its tenants are the stack's (acme, globex), whose agents have users. */
export const TEST_DEPLOYMENT = defineDeployment({
  name: 'test',
  tools: TOOLS,
  tenants: ['acme', 'globex'],
  // One worker runs every tool: the stack's worker, whose Kafka user exists and whose group the
  // tests' namespaces grant (test/support/namespace.ts).
  workers: [{ ...EXAMPLE_WORKER, tools: TOOLS.map((t) => t.name) }],
  policies: policies(),
  sessions: { secret: TEST_SESSION_SECRET, issuer: TEST_SESSION_ISSUER },
  seed: SEED_OBJECTS,
  confirmationTtlSeconds: 30 * 60,
});

export default TEST_DEPLOYMENT;
