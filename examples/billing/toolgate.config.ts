/**
 * The example deployment: a small billing world with two tenants, six tools and Cedar policies.
 * Used by the demo, the tests and the docs. Its session keys come from the environment
 * (docs/sessions.md): the identity provider's JWKS (TOOLGATE_SESSION_JWKS_URL or
 * TOOLGATE_SESSION_JWKS_FILE, with TOOLGATE_SESSION_ISSUER) or an HS256 secret
 * (TOOLGATE_SESSION_SECRET). With none of them it refuses to start, unless TOOLGATE_DEMO_SESSIONS=1
 * says that this is a demo, which may use the secret published below.
 *
 *   TOOLGATE_DEMO_SESSIONS=1 npx toolgate evaluate --config examples/billing/toolgate.config.ts < proposals.ndjson
 */
import { readdirSync, readFileSync } from 'node:fs';
import { defineDeployment, type Deployment, type SessionKeys } from '@toolgate/shared';
import { SEED_OBJECTS } from './data.js';
import { TOOLS } from './tools.js';

/**
 * The example's development secret, used only when TOOLGATE_DEMO_SESSIONS=1 and no key is given.
 * Anyone who reads this repository can mint tokens with it: it is never accepted otherwise.
 */
export const EXAMPLE_SESSION_SECRET = 'toolgate-example-only-secret-never-deploy-0001';

/** The issuer of the example's HS256 tokens (`toolgate token`, the demo), unless one is given. */
export const EXAMPLE_SESSION_ISSUER = 'toolgate-example';

type Env = Readonly<Record<string, string | undefined>>;

/**
 * The example's session keys as `env` gives them. A JWKS (URL or file) needs its issuer
 * (TOOLGATE_SESSION_ISSUER); a secret defaults it to {@link EXAMPLE_SESSION_ISSUER}. With no key
 * at all, no key is configured, and the start is refused with a message naming these variables,
 * unless TOOLGATE_DEMO_SESSIONS=1: then the published {@link EXAMPLE_SESSION_SECRET}.
 */
export function exampleSessions(env: Env): SessionKeys {
  const given = (name: string) => (env[name] === '' ? undefined : env[name]);
  const jwksFile = given('TOOLGATE_SESSION_JWKS_FILE');
  const jwksUrl = given('TOOLGATE_SESSION_JWKS_URL');
  const jwks = jwksFile !== undefined || jwksUrl !== undefined;
  const demo = env['TOOLGATE_DEMO_SESSIONS'] === '1' && !jwks;
  const secret = given('TOOLGATE_SESSION_SECRET') ?? (demo ? EXAMPLE_SESSION_SECRET : undefined);
  const issuer = given('TOOLGATE_SESSION_ISSUER') ?? (jwks ? undefined : EXAMPLE_SESSION_ISSUER);
  return {
    ...(secret === undefined ? {} : { secret }),
    ...(jwksFile === undefined ? {} : { jwksFile }),
    ...(jwksUrl === undefined ? {} : { jwksUrl }),
    ...(issuer === undefined ? {} : { issuer }),
  };
}

const policyDir = new URL('./policies/', import.meta.url);

const POLICIES = readdirSync(policyDir)
  .filter((f) => f.endsWith('.cedar'))
  .sort()
  .map((name) => ({ name, text: readFileSync(new URL(name, policyDir), 'utf8') }));

/** The example deployment, its session keys read from `env` ({@link exampleSessions}). */
export function billingDeployment(env: Env): Deployment {
  return defineDeployment({
    name: 'billing',
    tools: TOOLS,
    tenants: ['acme', 'globex'],
    // The example's one worker runs every tool (examples/billing/tool-worker.ts).
    workers: [{ principal: 'worker-billing', name: 'billing', tools: TOOLS.map((t) => t.name) }],
    policies: POLICIES,
    sessions: exampleSessions(env),
    seed: SEED_OBJECTS,
    confirmationTtlSeconds: 30 * 60,
  });
}

/** The example deployment of this process's environment. */
export default billingDeployment(process.env);
