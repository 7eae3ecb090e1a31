/**
 * Builds the ladder's facts from a deployment: resolves ceilings, compiles tools under them,
 * parses policies and prepares the session verifier. Throws a configuration error (listing every problem)
 * at start-up; never later.
 */
import { ConfigError, createSessionVerifier } from '../auth/index.js';
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
 * copy of its seed.
 *
 * @throws the part's own error (`CeilingsConfigError`, `ToolDefinitionError`, `ConfigError`) when
 *   one part of the deployment is bad, or a `ConfigError` naming every problem of every part, each
 *   prefixed with its part, when several are.
 */
export function createGate(
  deployment: Deployment,
  options: { readonly objects?: ObjectStore } = {},
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
  // Ceilings first: every tool is loaded under them (a tool's timeout and output ceiling). When
  // they are bad, the tools are still checked, under the largest ceilings any deployment may set,
  // so that a tool is reported only for what no ceiling would let it declare.
  const ceilings = checked('ceilings', () => resolveCeilings(deployment.ceilings ?? {}));
  const tools = ceilings ?? LARGEST_TOOL_CEILINGS;
  const registry = checked('tools', () => createToolRegistry(deployment.tools, tools));
  const policies = checked('policies', () => loadPolicySet(deployment.policies));
  const verifier = checked('sessions', () => createSessionVerifier(deployment.sessions));
  if (
    ceilings === undefined ||
    registry === undefined ||
    policies === undefined ||
    verifier === undefined ||
    refused.length > 0
  ) {
    throw refusalOf(refused);
  }
  return {
    registry,
    policies,
    verifier,
    objects:
      options.objects ?? deployment.objects?.() ?? createMemoryObjectStore(deployment.seed ?? []),
    ceilings,
  };
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
