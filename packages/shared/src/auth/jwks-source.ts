/**
 * Where the session verifier finds the public key of a token: a JWKS fixed in the deployment, or
 * one the shell reads from a file or fetches from the identity provider and keeps current.
 */
import { createLocalJWKSet, type JSONWebKeySet, type JWTVerifyGetKey } from 'jose';

/** The JWKS keys trusted now. */
export interface JwksSource {
  /**
   * The key for a token's protected header (jose's key resolver). Throws jose's
   * `JWKSNoMatchingKey` when no trusted key matches, and {@link SessionKeysUnavailable} when the
   * keys cannot be had now (the URL does not answer in time, the file was never readable).
   */
  readonly getKey: JWTVerifyGetKey;
  /**
   * A number that changes whenever the trusted keys change (looking for a change first, where the
   * source does), so that a token verified under keys since removed is verified again; NaN while
   * the keys must be fetched again before any use.
   */
  generation(): Promise<number>;
}

/**
 * The keys cannot be had now: the token is refused as `session_keys_unavailable`, never accepted.
 * `message` is for the audit detail: it names the source, never a token.
 */
export class SessionKeysUnavailable extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'SessionKeysUnavailable';
  }
}

/** A source over a JWKS that never changes (checked beforehand with `jwksProblems`). */
export function staticJwksSource(jwks: JSONWebKeySet): JwksSource {
  const local = createLocalJWKSet(jwks);
  return { getKey: local, generation: () => Promise.resolve(0) };
}
