/**
 * Opens the key source of a deployment's JWKS file or URL, for `createGate`: the shell reads
 * files and fetches URLs, the core only verifies.
 */
import {
  claimRuleProblems,
  ConfigError,
  createGate,
  type Deployment,
  type Gate,
  type ObjectStore,
  SessionKeysUnavailable,
  sessionKeyProblems,
  type JwksSource,
  type SessionKeys,
} from '@toolgate/shared';
import { openJwksFile, type KeySourceLog } from './jwks-file-source.js';
import { openJwksUrl } from './jwks-url-source.js';

/** What {@link openSessionKeySource} opened, or the problems that stopped it. */
export interface OpenedKeySource {
  /** Undefined when the deployment names no JWKS file or URL. */
  readonly jwksSource?: JwksSource;
  /** Problems reading the JWKS file at start; empty when none. */
  readonly problems: readonly string[];
}

/**
 * The key source of `sessions.jwksFile` or `sessions.jwksUrl`. The file is read now: a file that
 * cannot be read or holds a bad key is a problem of the start. The URL is fetched once now, in the
 * background: an identity provider that does not answer yet is logged, not fatal (its tokens are
 * refused until it answers). When the sessions are misconfigured otherwise, a placeholder that
 * refuses every key is returned, and `createGate` reports the configuration.
 */
export function openSessionKeySource(sessions: SessionKeys, log: KeySourceLog): OpenedKeySource {
  const { jwksFile, jwksUrl } = sessions;
  if (jwksFile === undefined && jwksUrl === undefined) return { problems: [] };
  if (sessionKeyProblems(sessions).length + claimRuleProblems(sessions).length > 0) {
    return { jwksSource: refusingSource(), problems: [] };
  }
  if (jwksFile !== undefined) {
    try {
      return { jwksSource: openJwksFile(jwksFile, { log }), problems: [] };
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      return { jwksSource: refusingSource(), problems: error.problems };
    }
  }
  const source = openJwksUrl(jwksUrl ?? '', {
    log,
    ...(sessions.jwksTimeoutMs === undefined ? {} : { timeoutMs: sessions.jwksTimeoutMs }),
    ...(sessions.jwksCacheSeconds === undefined ? {} : { cacheSeconds: sessions.jwksCacheSeconds }),
  });
  // A first fetch, so that the first token does not wait for it; a failure is logged.
  void source.refresh();
  return { jwksSource: source, problems: [] };
}

/**
 * `createGate(deployment, options)` with the deployment's JWKS file or URL opened (the gate's
 * processes and the CLI build their gate this way); a JWKS file that cannot be used at start is
 * reported together with every other problem of the deployment.
 */
export function createGateWithSessionKeys(
  deployment: Deployment,
  options: { readonly objects?: ObjectStore },
  log: KeySourceLog,
): Gate {
  const opened = openSessionKeySource(deployment.sessions, log);
  const { jwksSource } = opened;
  let gate: Gate | undefined;
  let later: readonly string[] = [];
  try {
    gate = createGate(deployment, {
      ...options,
      ...(jwksSource === undefined ? {} : { jwksSource }),
    });
  } catch (error) {
    if (opened.problems.length === 0 || !isProblems(error)) throw error;
    later = error.problems;
  }
  if (opened.problems.length > 0 || gate === undefined) {
    throw new ConfigError('deployment', [
      ...opened.problems.map((p) => `sessions: ${p}`),
      ...later,
    ]);
  }
  return gate;
}

function isProblems(error: unknown): error is { readonly problems: readonly string[] } {
  return (
    typeof error === 'object' &&
    error !== null &&
    Array.isArray((error as { problems?: unknown }).problems)
  );
}

function refusingSource(): JwksSource {
  return {
    getKey: () => Promise.reject(new SessionKeysUnavailable('the session JWKS was not opened')),
    generation: () => Promise.resolve(Number.NaN),
  };
}
