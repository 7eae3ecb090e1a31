/**
 * Checks and prepares the keys a session verifier trusts. Every problem is reported at once, and a
 * key that could never verify a token is refused here rather than failing every request later.
 */
import { createPublicKey, type JsonWebKey } from 'node:crypto';
import type { JSONWebKeySet, JWSAlgorithm } from 'jose';
import { ConfigError } from './config-error.js';
import { staticJwksSource, type JwksSource } from './jwks-source.js';

/**
 * How a deployment verifies session tokens: the keys it trusts and the claims it requires. At
 * least one key source is given: an HS256 `secret` (development) and/or one JWKS (`jwks`,
 * `jwksFile` or `jwksUrl`: the identity provider's public keys, production).
 */
export interface SessionKeys {
  /** HS256 shared secret (development; at least {@link MIN_SECRET_BYTES} UTF-8 bytes). */
  readonly secret?: string;
  /** A JWKS object of public EdDSA (Ed25519), ES256 (P-256) or RS256 (RSA ≥ 2048 bits) keys, fixed at start. */
  readonly jwks?: { readonly keys: readonly Record<string, unknown>[] };
  /**
   * A JWKS file, read at start (every problem refuses the start) and read again when it changes,
   * without a restart: a key added is trusted, a key removed is refused. A change that cannot be
   * read or holds a bad key is logged and the last good keys stay in force.
   */
  readonly jwksFile?: string;
  /**
   * The identity provider's JWKS URL (`jwks_uri` of its OpenID configuration): `https:`, or
   * `http:` on a loopback host only. Cached ({@link jwksCacheSeconds}), fetched again for an
   * unknown `kid`, each fetch bounded by {@link jwksTimeoutMs}; when the keys cannot be had, tokens
   * are refused (`session_keys_unavailable`), never accepted. Keys of a shape the gate does not
   * trust are left out of the set.
   */
  readonly jwksUrl?: string;
  /** How long fetched keys are used before they are fetched again, in seconds. Default 600. */
  readonly jwksCacheSeconds?: number;
  /** The longest wait for the JWKS URL, in ms, from 1 to 60000. Default 5000. */
  readonly jwksTimeoutMs?: number;
  /** Required `iss`: the issuer, or every issuer accepted. Required. */
  readonly issuer?: string | readonly string[];
  /** Required `aud`. Default {@link SESSION_AUDIENCE}. */
  readonly audience?: string;
  /** Required `typ` header (e.g. `JWT`, `at+jwt`), compared as RFC 8725 says; default none. */
  readonly typ?: string;
  /** Longest lifetime `exp - iat` accepted, in seconds. Default {@link DEFAULT_MAX_LIFETIME_SECONDS}. */
  readonly maxLifetimeSeconds?: number;
  /** Clock skew allowed for `exp`, `nbf` and `iat`, in seconds, 0 to 300. Default 0. */
  readonly clockSkewSeconds?: number;
}

/** The audience every session token must name unless the deployment says otherwise (DESIGN §3). */
export const SESSION_AUDIENCE = 'toolgate';

/** Default longest session lifetime (`exp - iat`): 24 hours, in seconds. */
export const DEFAULT_MAX_LIFETIME_SECONDS = 24 * 60 * 60;

/** Shortest HS256 secret accepted, in bytes: the HMAC-SHA-256 output size (RFC 7518 §3.2). */
export const MIN_SECRET_BYTES = 32;

/** Smallest RSA modulus accepted, in bits. */
export const MIN_RSA_BITS = 2048;

/** The only algorithm a shared secret verifies. */
export const SECRET_ALGORITHMS: readonly JWSAlgorithm[] = ['HS256'];

/** The only algorithms JWKS keys verify; no HMAC, so a public key can never act as a secret. */
export const JWKS_ALGORITHMS: readonly JWSAlgorithm[] = ['EdDSA', 'ES256', 'RS256'];

/** Keys in the form the verifier uses, with the algorithms they pin. */
export interface PreparedKeys {
  readonly secret?: Uint8Array;
  readonly jwks?: JwksSource;
  readonly algorithms: readonly JWSAlgorithm[];
}

/** Every problem with the keys of `keys`, one sentence each (never the secret itself). */
export function sessionKeyProblems(keys: SessionKeys): string[] {
  const problems = [...secretProblems(keys.secret), ...jwksProblems(keys.jwks)];
  const sources = (['jwks', 'jwksFile', 'jwksUrl'] as const).filter((k) => keys[k] !== undefined);
  if (keys.secret === undefined && sources.length === 0) {
    problems.push(
      "no key to verify session tokens with: give the identity provider's JWKS (`sessions.jwksUrl` or `sessions.jwksFile`; TOOLGATE_SESSION_JWKS_URL or TOOLGATE_SESSION_JWKS_FILE in the example) or an HS256 secret of at least 32 random bytes (`sessions.secret`; TOOLGATE_SESSION_SECRET)",
    );
  }
  if (sources.length > 1) problems.push(`give one JWKS, not ${sources.join(' and ')}`);
  return problems;
}

/**
 * Validates `keys` and prepares them; throws a {@link ConfigError} listing every problem. A JWKS
 * file or URL is read by the shell, which hands its keys in as `source`.
 */
export function prepareSessionKeys(keys: SessionKeys, source?: JwksSource): PreparedKeys {
  const problems = sessionKeyProblems(keys);
  if (problems.length > 0) throw new ConfigError('session keys', problems);
  const jwks =
    keys.jwks === undefined ? source : staticJwksSource(keys.jwks as unknown as JSONWebKeySet);
  return {
    ...(keys.secret === undefined ? {} : { secret: secretBytes(keys.secret) }),
    ...(jwks === undefined ? {} : { jwks }),
    algorithms: [
      ...(keys.secret === undefined ? [] : SECRET_ALGORITHMS),
      ...(jwks === undefined ? [] : JWKS_ALGORITHMS),
    ],
  };
}

/** The secret as the bytes HMAC uses; throws a {@link ConfigError} when it is too short. */
export function secretBytes(secret: string): Uint8Array {
  const problems = secretProblems(secret);
  if (problems.length > 0) throw new ConfigError('session secret', problems);
  return new TextEncoder().encode(secret);
}

function secretProblems(secret: unknown): string[] {
  if (secret === undefined) return [];
  if (typeof secret !== 'string') return ['the secret is not a string'];
  const length = new TextEncoder().encode(secret).byteLength;
  return length < MIN_SECRET_BYTES
    ? [`the HS256 secret is ${length} bytes; at least ${MIN_SECRET_BYTES} are required`]
    : [];
}

/**
 * Every problem with a JWKS: not a set, no keys, or a key the gate does not trust (a private key,
 * a key type, curve or size it does not allow, a key not for verifying signatures).
 */
export function jwksProblems(jwks: unknown): string[] {
  if (jwks === undefined) return [];
  const keys = typeof jwks === 'object' && jwks !== null ? (jwks as { keys?: unknown }).keys : null;
  if (!Array.isArray(keys)) return ['the JWKS has no "keys" array'];
  if (keys.length === 0) return ['the JWKS has no keys'];
  return keys.flatMap((key: unknown, index) => jwkProblems(key, index));
}

/** Every problem with one key of a JWKS (`index` names it); empty when the gate trusts it. */
export function jwkProblems(jwk: unknown, index: number): string[] {
  const where = `JWKS key ${index}`;
  if (typeof jwk !== 'object' || jwk === null || Array.isArray(jwk)) {
    return [`${where} is not an object`];
  }
  const key = jwk as Record<string, unknown>;
  const named = typeof key['kid'] === 'string' ? `${where} (kid ${key['kid']})` : where;
  const problems = [...shapeProblems(key), ...usageProblems(key)].map((p) => `${named} ${p}`);
  return problems.length > 0 ? problems : materialProblems(key, named);
}

function shapeProblems(key: Record<string, unknown>): string[] {
  if ('d' in key) return ['holds a private key; publish only public keys'];
  if (key['kty'] === 'RSA') return [];
  const curve = CURVES[String(key['kty'])];
  if (curve !== undefined) {
    return key['crv'] === curve
      ? []
      : [`has curve ${shown(key['crv'])}; only ${curve} is allowed for ${String(key['kty'])}`];
  }
  return [`has key type ${shown(key['kty'])}; only OKP (Ed25519), EC (P-256) and RSA are allowed`];
}

/** The one curve each elliptic-curve key type may use. */
const CURVES: Readonly<Record<string, string>> = { OKP: 'Ed25519', EC: 'P-256' };

/** The one algorithm each key type may verify. */
const ALGORITHM_OF: Readonly<Record<string, JWSAlgorithm>> = {
  OKP: 'EdDSA',
  EC: 'ES256',
  RSA: 'RS256',
};

function usageProblems(key: Record<string, unknown>): string[] {
  const problems: string[] = [];
  const alg = key['alg'];
  const expected = ALGORITHM_OF[String(key['kty'])] ?? 'EdDSA';
  if (alg !== undefined && alg !== expected) {
    problems.push(`declares alg ${shown(alg)}; this key may only verify ${expected}`);
  }
  if (key['use'] !== undefined && key['use'] !== 'sig') problems.push('is not a signing key (use)');
  const ops = key['key_ops'];
  if (ops !== undefined && !(Array.isArray(ops) && ops.includes('verify'))) {
    problems.push('does not allow "verify" (key_ops)');
  }
  return problems;
}

function materialProblems(key: Record<string, unknown>, named: string): string[] {
  try {
    const details = createPublicKey({ key: key as JsonWebKey, format: 'jwk' }).asymmetricKeyDetails;
    const bits = details?.modulusLength;
    if (key['kty'] === 'RSA' && (bits === undefined || bits < MIN_RSA_BITS)) {
      return [`${named} has a ${bits ?? 0}-bit modulus; at least ${MIN_RSA_BITS} are required`];
    }
    return [];
  } catch (error) {
    return [`${named} cannot be imported (${error instanceof Error ? error.message : 'unknown'})`];
  }
}

/** A JSON value for a problem sentence; JWK members are public, so showing them leaks nothing. */
function shown(value: unknown): string {
  return typeof value === 'string' ? value : (JSON.stringify(value) ?? 'nothing');
}
