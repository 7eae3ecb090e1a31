/**
 * The authentication rung: who is asking, according to a verified session token (never the model).
 */
import { createHash } from 'node:crypto';
import { errors, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import { accept, rejecterFor, type Decision } from '../decision.js';
import type { Principal } from '../types.js';
import { ConfigError } from './config-error.js';
import { LruCache } from './lru-cache.js';
import { principalFromClaims } from './principal-from-claims.js';
import {
  prepareSessionKeys,
  sessionKeyProblems,
  type PreparedKeys,
  type SessionKeys,
} from './session-keys.js';

const reject = rejecterFor('authentication');

/** The audience every session token must name (DESIGN §3). */
export const SESSION_AUDIENCE = 'toolgate';

/** Default number of verified tokens remembered per verifier. */
export const DEFAULT_SESSION_CACHE_SIZE = 10_000;

/**
 * Longest token looked at, in characters. Real session tokens are well under 2 KiB; the bound keeps
 * a hostile header from costing a hash and a decode of arbitrary size.
 */
export const MAX_SESSION_TOKEN_CHARS = 8192;

/** Tuning for {@link createSessionVerifier}. */
export interface SessionVerifierOptions {
  /** Required `aud`. Default {@link SESSION_AUDIENCE}. */
  readonly audience?: string;
  /** Verified tokens remembered until their `exp` (LRU). Default {@link DEFAULT_SESSION_CACHE_SIZE}; 0 disables. */
  readonly cacheSize?: number;
  /** Allowed clock skew for `exp`/`nbf`, in seconds. Default 0: raise it only for measured issuer drift. */
  readonly clockToleranceSeconds?: number;
}

/** Verifies session tokens. */
export interface SessionVerifier {
  /**
   * missing_session (undefined/empty) | expired_session | invalid_session (bad signature, alg not
   * allowed, `aud` ≠ the audience, missing or ill-typed `sub`, `tenant` (non-empty strings),
   * `roles` (array of non-empty strings), `exp`). Verified tokens are cached until their `exp`
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
}

/**
 * Builds a verifier over trusted keys. Algorithms are pinned: HS256 for the secret, EdDSA and RS256
 * for the JWKS; `alg: none` and HMAC-with-a-public-key confusion are refused. Throws a
 * {@link ConfigError} listing every problem when neither key is given, a key is unusable or an
 * option is out of range.
 */
export function createSessionVerifier(
  keys: SessionKeys,
  options: SessionVerifierOptions = {},
): SessionVerifier {
  const problems = [...sessionKeyProblems(keys), ...optionProblems(options)];
  if (problems.length > 0) throw new ConfigError('session verifier configuration', problems);
  const settings = {
    keys: prepareSessionKeys(keys),
    audience: options.audience ?? SESSION_AUDIENCE,
    tolerance: options.clockToleranceSeconds ?? 0,
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
      const cached = cache.get(cacheKey);
      if (cached !== undefined && isWithinWindow(cached, now, settings.tolerance)) {
        return accept(cached.principal);
      }
      cache.delete(cacheKey);
      const outcome = await verifyToken(token, now, settings);
      if (outcome.ok) cache.set(cacheKey, outcome.value);
      return outcome.ok ? accept(outcome.value.principal) : outcome;
    },
  };
}

interface Settings {
  readonly keys: PreparedKeys;
  readonly audience: string;
  readonly tolerance: number;
}

async function verifyToken(
  token: string,
  now: Date,
  settings: Settings,
): Promise<Decision<Verified, 'authentication'>> {
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(token, keyResolver(settings.keys), {
      algorithms: [...settings.keys.algorithms],
      audience: settings.audience,
      currentDate: now,
      clockTolerance: settings.tolerance,
      requiredClaims: ['exp', 'sub'],
    }));
  } catch (error) {
    return refusalFor(error);
  }
  const claims = principalFromClaims(payload);
  if (!claims.ok) return reject('invalid_session', undefined, claims.problem);
  // jose has checked that exp is present and numeric (requiredClaims).
  const verified = { principal: claims.principal, exp: payload.exp ?? 0 };
  return accept(payload.nbf === undefined ? verified : { ...verified, nbf: payload.nbf });
}

/**
 * Picks the key by the (already allow-listed) header alg, so an HS256 token is only ever checked
 * against the shared secret and never against a public key's bytes.
 */
function keyResolver(keys: PreparedKeys): JWTVerifyGetKey {
  return async (header, input) => {
    if (header.alg === 'HS256' && keys.secret !== undefined) return keys.secret;
    if (keys.jwks !== undefined && header.alg !== 'HS256') return keys.jwks(header, input);
    throw new errors.JOSEAlgNotAllowed(`no key is configured for alg ${String(header.alg)}`);
  };
}

/** Public text stays the catalogue's; only the audit detail says why the signature or claims failed. */
function refusalFor(error: unknown): Decision<never, 'authentication'> {
  if (error instanceof errors.JWTExpired) {
    return reject('expired_session', undefined, `${error.code}: ${error.message}`);
  }
  if (error instanceof errors.JOSEError) {
    return reject('invalid_session', undefined, `${error.code}: ${error.message}`);
  }
  const detail = error instanceof Error ? `${error.name}: ${error.message}` : 'non-error thrown';
  return reject('invalid_session', undefined, `unexpected verification failure (${detail})`);
}

/** Mirrors jose's own window (whole seconds, `exp` exclusive) so a cache hit never outlives a fresh check. */
function isWithinWindow(entry: Verified, now: Date, tolerance: number): boolean {
  const seconds = Math.floor(now.getTime() / 1000);
  if (entry.nbf !== undefined && entry.nbf > seconds + tolerance) return false;
  return entry.exp > seconds - tolerance;
}

function optionProblems(options: SessionVerifierOptions): string[] {
  const problems: string[] = [];
  const { audience, cacheSize, clockToleranceSeconds } = options;
  if (audience !== undefined && (typeof audience !== 'string' || audience === '')) {
    problems.push('audience must be a non-empty string');
  }
  if (cacheSize !== undefined && !(Number.isSafeInteger(cacheSize) && cacheSize >= 0)) {
    problems.push(`cacheSize must be a whole number ≥ 0 (got ${String(cacheSize)})`);
  }
  const tolerance = clockToleranceSeconds;
  if (tolerance !== undefined && !(Number.isFinite(tolerance) && tolerance >= 0)) {
    problems.push(`clockToleranceSeconds must be a finite number ≥ 0 (got ${String(tolerance)})`);
  }
  return problems;
}
