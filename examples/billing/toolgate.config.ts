/**
 * The example deployment: a small billing world with two tenants, six tools and Cedar policies.
 * Used by the demo, the tests and the docs.
 *
 *   npx toolgate evaluate --config examples/billing/toolgate.config.ts < proposals.ndjson
 */
import { readdirSync, readFileSync } from 'node:fs';
import { defineDeployment } from '@toolgate/shared';
import { SEED_OBJECTS } from './data.js';
import { TOOLS } from './tools.js';

/**
 * The example's development secret, used only when TOOLGATE_SESSION_SECRET is not set. Anyone
 * who reads this repository can mint tokens with it: never deploy it.
 */
export const EXAMPLE_SESSION_SECRET = 'toolgate-example-only-secret-never-deploy-0001';

const policyDir = new URL('./policies/', import.meta.url);

export default defineDeployment({
  name: 'billing',
  tools: TOOLS,
  tenants: ['acme', 'globex'],
  // The example's one worker runs every tool (examples/billing/tool-worker.ts).
  workers: [{ principal: 'worker-billing', name: 'billing', tools: TOOLS.map((t) => t.name) }],
  policies: readdirSync(policyDir)
    .filter((f) => f.endsWith('.cedar'))
    .sort()
    .map((name) => ({ name, text: readFileSync(new URL(name, policyDir), 'utf8') })),
  sessions: { secret: process.env['TOOLGATE_SESSION_SECRET'] ?? EXAMPLE_SESSION_SECRET },
  seed: SEED_OBJECTS,
  confirmationTtlSeconds: 30 * 60,
});
