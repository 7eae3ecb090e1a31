/** Issues development session tokens; production tokens come from the deployer's auth service. */
import { SignJWT } from 'jose';
import type { Principal } from '../types.js';
import { ConfigError } from './config-error.js';
import { secretBytes, SESSION_AUDIENCE } from './session-keys.js';

/** When and for how long a minted session is valid. */
export interface MintOptions {
  /** The issue instant: `iat`. */
  readonly now: Date;
  /** Lifetime in whole seconds (> 0): `exp = iat + ttlSeconds`. */
  readonly ttlSeconds: number;
  /** `iss`: the issuer the verifying deployment requires (`mintingIssuer(deployment.sessions)`). */
  readonly issuer: string;
  /** `aud`; default {@link SESSION_AUDIENCE}. */
  readonly audience?: string;
}

/**
 * Development/test helper: an HS256 session token with `sub`, `tenant`, `roles`, `iss`, `aud`,
 * `iat = now` and `exp = now + ttlSeconds` (whole seconds). Throws a {@link ConfigError} when the
 * secret is shorter than 32 bytes or the lifetime is not a positive whole number.
 */
export async function mintSession(
  claims: Principal,
  secret: string,
  options: MintOptions,
): Promise<string> {
  const key = secretBytes(secret);
  if (!Number.isSafeInteger(options.ttlSeconds) || options.ttlSeconds <= 0) {
    throw new ConfigError('session minting', [`ttlSeconds must be a whole number > 0`]);
  }
  if (typeof options.issuer !== 'string' || options.issuer === '') {
    throw new ConfigError('session minting', ['issuer must be a non-empty string']);
  }
  const iat = Math.floor(options.now.getTime() / 1000);
  return new SignJWT({ tenant: claims.tenant, roles: [...claims.roles] })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(claims.subject)
    .setIssuer(options.issuer)
    .setAudience(options.audience ?? SESSION_AUDIENCE)
    .setIssuedAt(iat)
    .setExpirationTime(iat + options.ttlSeconds)
    .sign(key);
}
