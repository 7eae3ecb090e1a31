/**
 * Builds the ladder's facts from a deployment: resolves ceilings, compiles tools under them,
 * parses policies and prepares the session verifier. Throws a configuration error (listing every problem)
 * at start-up; never later.
 */
import { ConfigError, createSessionVerifier } from '../auth/index.js';
import { loadPolicySet } from '../authz/index.js';
import { confirmationTtlProblems } from '../confirmation/index.js';
import type { Deployment } from '../deployment.js';
import { resolveCeilings } from '../limits/index.js';
import { createToolRegistry } from '../tools/index.js';
import { createMemoryObjectStore } from '../memory-object-store.js';
import type { ObjectStore } from '../tool-spec.js';
import type { Gate } from './evaluate.js';

/**
 * The ladder's facts for `deployment`. Objects resolve from `options.objects` when given (the
 * services pass the shared store), else from the deployment's own store, else from an in-memory
 * copy of its seed.
 */
export function createGate(
  deployment: Deployment,
  options: { readonly objects?: ObjectStore } = {},
): Gate {
  // Read by the confirm stage only when a call needs a person: checked here, so that a bad value
  // stops every process at start instead of failing each such call.
  const ttlProblems = confirmationTtlProblems(deployment.confirmationTtlSeconds);
  if (ttlProblems.length > 0) throw new ConfigError('deployment', ttlProblems);
  // Ceilings first: every tool is loaded under them (a tool's timeout and output ceiling).
  const ceilings = resolveCeilings(deployment.ceilings ?? {});
  return {
    registry: createToolRegistry(deployment.tools, ceilings),
    policies: loadPolicySet(deployment.policies),
    verifier: createSessionVerifier(deployment.sessions),
    objects:
      options.objects ?? deployment.objects?.() ?? createMemoryObjectStore(deployment.seed ?? []),
    ceilings,
  };
}
