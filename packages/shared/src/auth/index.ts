/** The authentication rung: session tokens in, a verified principal (or a refusal) out. */
export { claimedPrincipal } from './claimed-principal.js';
export { ConfigError } from './config-error.js';
export { SessionKeysUnavailable, staticJwksSource, type JwksSource } from './jwks-source.js';
export { mintSession, type MintOptions } from './mint-session.js';
export { principalFromClaims, type ClaimsOutcome } from './principal-from-claims.js';
export {
  claimRuleProblems,
  DEFAULT_JWKS_CACHE_SECONDS,
  DEFAULT_JWKS_TIMEOUT_MS,
  MAX_CLOCK_SKEW_SECONDS,
  mintingIssuer,
} from './session-claims.js';
export {
  DEFAULT_MAX_LIFETIME_SECONDS,
  JWKS_ALGORITHMS,
  jwkProblems,
  jwksProblems,
  MIN_RSA_BITS,
  MIN_SECRET_BYTES,
  SECRET_ALGORITHMS,
  sessionKeyProblems,
  type SessionKeys,
} from './session-keys.js';
export {
  createSessionVerifier,
  DEFAULT_SESSION_CACHE_SIZE,
  MAX_SESSION_TOKEN_CHARS,
  SESSION_AUDIENCE,
  type SessionVerifier,
  type SessionVerifierOptions,
} from './session-verifier.js';
