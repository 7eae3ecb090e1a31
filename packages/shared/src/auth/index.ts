/** The authentication rung: session tokens in, a verified principal (or a refusal) out. */
export { claimedPrincipal } from './claimed-principal.js';
export { ConfigError } from './config-error.js';
export { mintSession, type MintOptions } from './mint-session.js';
export { principalFromClaims, type ClaimsOutcome } from './principal-from-claims.js';
export {
  JWKS_ALGORITHMS,
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
