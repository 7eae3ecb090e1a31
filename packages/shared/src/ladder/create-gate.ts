/**
 * Builds the ladder's facts from a deployment: resolves ceilings, compiles tools under them,
 * parses policies and prepares the session verifier. Throws a configuration error (listing every problem)
 * at start-up; never later.
 */
import {
  ConfigError,
  createSessionVerifier,
  type JwksSource,
  type SessionVerifier,
} from '../auth/index.js';
import { alertRuleProblems } from '../analytics/alerts/alert-rules.js';
import { rejecterFor } from '../decision.js';
import { loadPolicySet } from '../authz/index.js';
import { confirmationTtlProblems } from '../confirmation/index.js';
import type { Deployment } from '../deployment.js';
import {
  CeilingsConfigError,
  MAX_RESULT_BYTES,
  MAX_TOOL_TIMEOUT_MS,
  resolveCeilings,
} from '../limits/index.js';
import { createToolRegistry, ToolDefinitionError, type ToolCeilings } from '../tools/index.js';
import { createMemoryObjectStore } from '../memory-object-store.js';
import type { ObjectStore } from '../tool-spec.js';
import type { Gate } from './evaluate.js';

/** The most any deployment lets a tool take: tools are still checked when the ceilings are bad. */
const LARGEST_TOOL_CEILINGS: ToolCeilings = {
  toolTimeoutMs: MAX_TOOL_TIMEOUT_MS,
  resultBytes: MAX_RESULT_BYTES,
};

/** A configuration error that lists its problems: what a bad deployment or environment throws. */
export type ConfigurationError = ConfigError | CeilingsConfigError | ToolDefinitionError;

/**
 * The ladder's facts for `deployment`. Objects resolve from `options.objects` when given (the
 * services pass the shared store), else from the deployment's own store, else from an in-memory
 * copy of its seed. `options.jwksSource` holds the keys of the deployment's JWKS file or URL, which
 * the shell reads (`openSessionKeySource` of the platform).
 *
 * @throws the part's own error (`CeilingsConfigError`, `ToolDefinitionError`, `ConfigError`) when
 *   one part of the deployment is bad, or a `ConfigError` naming every problem of every part, each
 *   prefixed with its part, when several are.
 */
export function createGate(
  deployment: Deployment,
  options: { readonly objects?: ObjectStore; readonly jwksSource?: JwksSource } = {},
): Gate {
  const refused: { readonly part: string; readonly error: ConfigurationError }[] = [];
  const checked = <T>(part: string, build: () => T): T | undefined => {
    try {
      return build();
    } catch (error) {
      if (!isConfigurationError(error)) throw error;
      refused.push({ part, error });
      return undefined;
    }
  };
  // Read by the confirm stage only when a call needs a person: checked here, so that a bad value
  // stops every process at start instead of failing each such call.
  const ttlProblems = confirmationTtlProblems(deployment.confirmationTtlSeconds);
  if (ttlProblems.length > 0) {
    refused.push({ part: '', error: new ConfigError('deployment', ttlProblems) });
  }
  // Read by the analytics service only: checked here too, so that a bad rule stops every process
  // at start rather than only the one that would have run it.
  const alertProblems = alertRuleProblems(deployment.analytics?.alerts);
  if (alertProblems.length > 0) {
    refused.push({
      part: 'analytics.alerts',
      error: new ConfigError('analytics.alerts', alertProblems),
    });
  }
  const tenantProblems = deploymentTenantProblems(deployment);
  if (tenantProblems.length > 0) {
    refused.push({ part: 'tenants', error: new ConfigError('deployment tenants', tenantProblems) });
  }
  // Ceilings first: every tool is loaded under them (a tool's timeout and output ceiling). When
  // they are bad, the tools are still checked, under the largest ceilings any deployment may set,
  // so that a tool is reported only for what no ceiling would let it declare.
  const ceilings = checked('ceilings', () => resolveCeilings(deployment.ceilings ?? {}));
  const tools = ceilings ?? LARGEST_TOOL_CEILINGS;
  const registry = checked('tools', () => createToolRegistry(deployment.tools, tools));
  const policies = checked('policies', () => loadPolicySet(deployment.policies));
  const { jwksSource } = options;
  const verifier = checked('sessions', () =>
    createSessionVerifier(deployment.sessions, jwksSource === undefined ? {} : { jwksSource }),
  );
  if (
    ceilings === undefined ||
    registry === undefined ||
    policies === undefined ||
    verifier === undefined ||
    refused.length > 0
  ) {
    throw refusalOf(refused);
  }
  const tenants: ReadonlySet<string> = new Set(deployment.tenants);
  return {
    registry,
    tenants,
    policies,
    verifier: servingTenants(verifier, tenants),
    objects:
      options.objects ?? deployment.objects?.() ?? createMemoryObjectStore(deployment.seed ?? []),
    ceilings,
  };
}

const rejectSession = rejecterFor('authentication');

/**
 * `verifier`, refusing a verified session of a tenant the deployment does not serve
 * (`unknown_tenant`): it has no observations topic, and no policy was written for it.
 */
function servingTenants(verifier: SessionVerifier, tenants: ReadonlySet<string>): SessionVerifier {
  return {
    async verify(token, now) {
      const verified = await verifier.verify(token, now);
      if (!verified.ok || tenants.has(verified.value.tenant)) return verified;
      return rejectSession(
        'unknown_tenant',
        undefined,
        `the session of ${verified.value.subject} names tenant ${JSON.stringify(verified.value.tenant)}, which the deployment does not list`,
      );
    },
  };
}

/** A tenant or tool-worker name: what may follow `toolgate.observations.` in a topic name. */
const NAME = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * Every problem with the deployment's tenants and workers: none listed, a name that cannot name a
 * topic, a name listed twice, a worker without tools or with a tool the deployment lacks.
 */
export function deploymentTenantProblems(deployment: Deployment): string[] {
  const problems: string[] = [];
  const tenants = (deployment.tenants as readonly unknown[] | undefined) ?? [];
  if (!Array.isArray(tenants) || tenants.length === 0) {
    problems.push('list at least one tenant (`tenants`): each gets its own observations topic');
  }
  const seen = new Set<unknown>();
  for (const tenant of Array.isArray(tenants) ? tenants : []) {
    if (typeof tenant !== 'string' || !NAME.test(tenant)) {
      problems.push(`tenant ${JSON.stringify(tenant)} is not 1-64 characters of A-Z a-z 0-9 _ -`);
    } else if (seen.has(tenant)) {
      problems.push(`tenant ${tenant} is listed twice`);
    }
    seen.add(tenant);
  }
  const tools = new Set(deployment.tools.map((t) => t.name));
  for (const worker of deployment.workers ?? []) {
    if (!NAME.test(worker.principal)) {
      problems.push(`worker principal ${JSON.stringify(worker.principal)} is not a plain name`);
    }
    if (!/^[A-Za-z0-9._-]{1,100}$/.test(worker.name)) {
      problems.push(`worker name ${JSON.stringify(worker.name)} is not 1-100 of A-Z a-z 0-9 . _ -`);
    }
    if (worker.tools.length === 0) problems.push(`worker ${worker.principal} runs no tool`);
    for (const tool of worker.tools.filter((t) => !tools.has(t))) {
      problems.push(
        `worker ${worker.principal} runs ${tool}, which is not a tool of the deployment`,
      );
    }
  }
  return problems;
}

/** One part's own error, or a `ConfigError` naming every problem of every part. */
function refusalOf(
  refused: readonly { readonly part: string; readonly error: ConfigurationError }[],
): ConfigurationError {
  const [only, ...more] = refused;
  if (only !== undefined && more.length === 0) return only.error;
  const problems = refused.flatMap(({ part, error }) =>
    error.problems.map((p) => (part === '' ? p : `${part}: ${p}`)),
  );
  return new ConfigError('deployment', problems);
}

/**
 * True for an error that reports bad configuration, every problem listed: a `ConfigError`, the
 * `CeilingsConfigError` of a deployment's ceilings, or the `ToolDefinitionError` of its tools.
 */
export function isConfigurationError(error: unknown): error is ConfigurationError {
  return (
    error instanceof ConfigError ||
    error instanceof CeilingsConfigError ||
    error instanceof ToolDefinitionError
  );
}
