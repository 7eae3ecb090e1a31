/**
 * The authentication rung: who is asking, according to a verified session token (never the model).
 */
import { createHash } from 'node:crypto';
import { errors, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import { accept, rejecterFor, type Decision } from '../decision.js';
import type { Principal } from '../types.js';
import { ConfigError } from './config-error.js';
import { LruCache } from './lru-cache.js';
import { SessionKeysUnavailable, type JwksSource } from './jwks-source.js';
import { principalFromClaims } from './principal-from-claims.js';
import {
  claimRuleProblems,
  claimRulesOf,
  lifetimeProblem,
  type ClaimRules,
} from './session-claims.js';
import {
  prepareSessionKeys,
  SESSION_AUDIENCE,
  sessionKeyProblems,
  type PreparedKeys,
  type SessionKeys,
} from './session-keys.js';

const reject = rejecterFor('authentication');

export { SESSION_AUDIENCE };

/** Default number of verified tokens remembered per verifier. */
export const DEFAULT_SESSION_CACHE_SIZE = 10_000;

/**
 * Longest token looked at, in characters. Real session tokens are well under 2 KiB; the bound keeps
 * a hostile header from costing a hash and a decode of arbitrary size.
 */
export const MAX_SESSION_TOKEN_CHARS = 8192;

/** Tuning for {@link createSessionVerifier}. */
export interface SessionVerifierOptions {
  /** Verified tokens remembered until their `exp` (LRU). Default {@link DEFAULT_SESSION_CACHE_SIZE}; 0 disables. */
  readonly cacheSize?: number;
  /**
   * The keys of `jwksFile` or `jwksUrl`, kept current by the shell (`openSessionKeySource` of the
   * platform); required when the deployment names either, refused otherwise.
   */
  readonly jwksSource?: JwksSource;
}

/** Verifies session tokens. */
export interface SessionVerifier {
  /**
   * missing_session (undefined/empty) | expired_session | invalid_session (bad signature, alg not
   * allowed, `iss` not an accepted issuer, `aud` ≠ the audience, `typ` not the one required,
   * missing `iat` or `exp`, `iat` in the future, a lifetime above the longest, missing or
   * ill-typed `sub`, `tenant` (non-empty strings), `roles` (array of non-empty strings)) |
   * session_keys_unavailable (the JWKS cannot be had now). The audit detail names the claim.
   * Verified tokens are cached until their `exp`
   * (bounded LRU) so repeated calls of a run do not re-verify; a cached entry outside its validity
   * window at `now` is verified afresh, so it is refused exactly as an uncached token would be.
   */
  verify(token: string | undefined, now: Date): Promise<Decision<Principal, 'authentication'>>;
}

interface Verified {
  readonly principal: Principal;
  /** Seconds since the epoch; the token is valid while `now < exp + tolerance`. */
  readonly exp: number;
  /** Seconds since the epoch, when the token carries `nbf`. */
  readonly nbf?: number;
  /** The JWKS generation it was verified under; undefined for an HS256 token. */
  readonly generation?: number;
}

/**
 * Builds a verifier over trusted keys. Algorithms are pinned: HS256 for the secret, EdDSA, ES256
 * and RS256 for the JWKS; `alg: none` and HMAC-with-a-public-key confusion are refused. Throws a
 * {@link ConfigError} listing every problem when neither key is given, a key is unusable or an
 * option is out of range.
 */
export function createSessionVerifier(
  keys: SessionKeys,
  options: SessionVerifierOptions = {},
): SessionVerifier {
  const problems = [
    ...sessionKeyProblems(keys),
    ...claimRuleProblems(keys),
    ...optionProblems(keys, options),
  ];
  if (problems.length > 0) throw new ConfigError('session verifier configuration', problems);
  const settings: Settings = {
    keys: prepareSessionKeys(keys, options.jwksSource),
    rules: claimRulesOf(keys),
  };
  const cache = new LruCache<string, Verified>(options.cacheSize ?? DEFAULT_SESSION_CACHE_SIZE);
  return {
    async verify(token, now) {
      if (token === undefined || token === '') {
        return reject('missing_session', undefined, 'no toolgate-session token was presented');
      }
      if (token.length > MAX_SESSION_TOKEN_CHARS) {
        return reject(
          'invalid_session',
          undefined,
          `token of ${token.length} characters exceeds ${MAX_SESSION_TOKEN_CHARS}`,
        );
      }
      const cacheKey = createHash('sha256').update(token).digest('base64');
      // Taken before verifying: a rotation meanwhile leaves the entry older than the keys, never newer.
      const jwks = settings.keys.jwks;
      const generation = jwks === undefined ? undefined : await jwks.generation();
      const cached = cache.get(cacheKey);
      if (cached !== undefined && isCurrent(cached, now, settings.rules, generation)) {
        return accept(cached.principal);
      }
      cache.delete(cacheKey);
      const outcome = await verifyToken(token, now, settings, generation);
      if (outcome.ok) cache.set(cacheKey, outcome.value);
      return outcome.ok ? accept(outcome.value.principal) : outcome;
    },
  };
}

interface Settings {
  readonly keys: PreparedKeys;
  readonly rules: ClaimRules;
}

async function verifyToken(
  token: string,
  now: Date,
  settings: Settings,
  keysGeneration: number | undefined,
): Promise<Decision<Verified, 'authentication'>> {
  const { keys, rules } = settings;
  let payload: JWTPayload;
  let generation: number | undefined;
  try {
    const verified = await jwtVerify(token, keyResolver(keys), {
      algorithms: [...keys.algorithms],
      issuer: [...rules.issuers],
      audience: rules.audience,
      ...(rules.typ === undefined ? {} : { typ: rules.typ }),
      currentDate: now,
      clockTolerance: rules.clockSkewSeconds,
      requiredClaims: ['iss', 'iat', 'exp', 'sub'],
    });
    payload = verified.payload;
    if (verified.protectedHeader.alg !== 'HS256') generation = keysGeneration;
  } catch (error) {
    return refusalFor(error);
  }
  // jose has checked that iat and exp are present and numeric (requiredClaims).
  const times = { iat: payload.iat ?? 0, exp: payload.exp ?? 0 };
  const tooLong = lifetimeProblem(times, now, rules);
  if (tooLong !== undefined) return reject('invalid_session', undefined, tooLong);
  const claims = principalFromClaims(payload);
  if (!claims.ok) return reject('invalid_session', undefined, claims.problem);
  return accept({
    principal: claims.principal,
    exp: times.exp,
    ...(payload.nbf === undefined ? {} : { nbf: payload.nbf }),
    ...(generation === undefined ? {} : { generation }),
  });
}

/**
 * Picks the key by the (already allow-listed) header alg, so an HS256 token is only ever checked
 * against the shared secret and never against a public key's bytes.
 */
function keyResolver(keys: PreparedKeys): JWTVerifyGetKey {
  return async (header, input) => {
    if (header.alg === 'HS256' && keys.secret !== undefined) return keys.secret;
    if (keys.jwks !== undefined && header.alg !== 'HS256') return keys.jwks.getKey(header, input);
    throw new errors.JOSEAlgNotAllowed(`no key is configured for alg ${String(header.alg)}`);
  };
}

/** Public text stays the catalogue's; only the audit detail says why the signature or claims failed. */
function refusalFor(error: unknown): Decision<never, 'authentication'> {
  if (error instanceof SessionKeysUnavailable) {
    return reject('session_keys_unavailable', undefined, error.message);
  }
  if (error instanceof errors.JWTExpired) {
    return reject('expired_session', undefined, `${error.code}: ${error.message}`);
  }
  if (error instanceof errors.JWTClaimValidationFailed) {
    const detail = `${error.code}: claim "${error.claim}" ${error.reason}: ${error.message}`;
    return reject('invalid_session', undefined, detail);
  }
  if (error instanceof errors.JOSEError) {
    return reject('invalid_session', undefined, `${error.code}: ${error.message}`);
  }
  const detail = error instanceof Error ? `${error.name}: ${error.message}` : 'non-error thrown';
  return reject('invalid_session', undefined, `unexpected verification failure (${detail})`);
}

/**
 * Mirrors jose's own window (whole seconds, `exp` exclusive) so a cache hit never outlives a fresh
 * check; a token verified under JWKS keys since changed (or due to be fetched again) is verified
 * afresh, so a key removed from the set stops its tokens at once.
 */
function isCurrent(
  entry: Verified,
  now: Date,
  rules: ClaimRules,
  generation: number | undefined,
): boolean {
  if (entry.generation !== undefined && entry.generation !== generation) return false;
  const tolerance = rules.clockSkewSeconds;
  const seconds = Math.floor(now.getTime() / 1000);
  if (entry.nbf !== undefined && entry.nbf > seconds + tolerance) return false;
  return entry.exp > seconds - tolerance;
}

function optionProblems(keys: SessionKeys, options: SessionVerifierOptions): string[] {
  const problems: string[] = [];
  const { cacheSize, jwksSource } = options;
  if (cacheSize !== undefined && !(Number.isSafeInteger(cacheSize) && cacheSize >= 0)) {
    problems.push(`cacheSize must be a whole number ≥ 0 (got ${String(cacheSize)})`);
  }
  const loaded = keys.jwksFile !== undefined || keys.jwksUrl !== undefined;
  if (loaded && jwksSource === undefined) {
    problems.push(
      "a JWKS file or URL is read by the gate's runtime: open it with openSessionKeySource",
    );
  }
  if (!loaded && jwksSource !== undefined) {
    problems.push('a JWKS source was given but the deployment names no JWKS file or URL');
  }
  return problems;
}
