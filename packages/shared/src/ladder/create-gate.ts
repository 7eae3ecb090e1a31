/**
 * Builds the ladder's facts from a deployment: compiles tools, parses policies, prepares the
 * session verifier and resolves ceilings. Throws a configuration error (listing every problem)
 * at start-up; never later.
 */
import { createSessionVerifier } from '../auth/index.js';
import { loadPolicySet } from '../authz/index.js';
import type { Deployment } from '../deployment.js';
import { resolveCeilings } from '../limits/index.js';
import { createToolRegistry } from '../tools/index.js';
import type { Gate } from './evaluate.js';

/** The ladder's facts for `deployment`. */
export function createGate(deployment: Deployment): Gate {
  return {
    registry: createToolRegistry(deployment.tools),
    policies: loadPolicySet(deployment.policies),
    verifier: createSessionVerifier(deployment.sessions),
    objects: deployment.objects(),
    ceilings: resolveCeilings(deployment.ceilings ?? {}),
  };
}
