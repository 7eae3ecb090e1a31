/**
 * Checks and prepares the keys a session verifier trusts. Every problem is reported at once, and a
 * key that could never verify a token is refused here rather than failing every request later.
 */
import { createPublicKey, type JsonWebKey } from 'node:crypto';
import { createLocalJWKSet, type JSONWebKeySet, type JWSAlgorithm, type LocalJWKSet } from 'jose';
import { ConfigError } from './config-error.js';

/** The keys a deployment trusts for session tokens. At least one must be given. */
export interface SessionKeys {
  /** HS256 shared secret (development; at least {@link MIN_SECRET_BYTES} UTF-8 bytes). */
  readonly secret?: string;
  /** A JWKS object of public EdDSA (Ed25519) or RS256 (RSA ≥ 2048 bits) keys (production). */
  readonly jwks?: { readonly keys: readonly Record<string, unknown>[] };
}

/** Shortest HS256 secret accepted, in bytes: the HMAC-SHA-256 output size (RFC 7518 §3.2). */
export const MIN_SECRET_BYTES = 32;

/** Smallest RSA modulus accepted, in bits. */
export const MIN_RSA_BITS = 2048;

/** The only algorithm a shared secret verifies. */
export const SECRET_ALGORITHMS: readonly JWSAlgorithm[] = ['HS256'];

/** The only algorithms JWKS keys verify; no HMAC, so a public key can never act as a secret. */
export const JWKS_ALGORITHMS: readonly JWSAlgorithm[] = ['EdDSA', 'RS256'];

/** Keys in the form the verifier uses, with the algorithms they pin. */
export interface PreparedKeys {
  readonly secret?: Uint8Array;
  readonly jwks?: LocalJWKSet;
  readonly algorithms: readonly JWSAlgorithm[];
}

/** Every problem with `keys`, one sentence each (never the secret itself); empty when usable. */
export function sessionKeyProblems(keys: SessionKeys): string[] {
  const problems = [...secretProblems(keys.secret), ...jwksProblems(keys.jwks)];
  if (keys.secret === undefined && keys.jwks === undefined) {
    problems.push('neither a secret nor a JWKS is given');
  }
  return problems;
}

/** Validates `keys` and prepares them; throws a {@link ConfigError} listing every problem. */
export function prepareSessionKeys(keys: SessionKeys): PreparedKeys {
  const problems = sessionKeyProblems(keys);
  if (problems.length > 0) throw new ConfigError('session keys', problems);
  return {
    ...(keys.secret === undefined ? {} : { secret: secretBytes(keys.secret) }),
    ...(keys.jwks === undefined ? {} : { jwks: createLocalJWKSet(keys.jwks as JSONWebKeySet) }),
    algorithms: [
      ...(keys.secret === undefined ? [] : SECRET_ALGORITHMS),
      ...(keys.jwks === undefined ? [] : JWKS_ALGORITHMS),
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

function jwksProblems(jwks: SessionKeys['jwks']): string[] {
  if (jwks === undefined) return [];
  if (typeof jwks !== 'object' || jwks === null || !Array.isArray(jwks.keys)) {
    return ['the JWKS has no "keys" array'];
  }
  if (jwks.keys.length === 0) return ['the JWKS has no keys'];
  return jwks.keys.flatMap((key, index) => keyProblems(key, index));
}

function keyProblems(jwk: unknown, index: number): string[] {
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
  if (key['kty'] === 'OKP') {
    return key['crv'] === 'Ed25519'
      ? []
      : [`has curve ${shown(key['crv'])}; only Ed25519 is allowed`];
  }
  return [`has key type ${shown(key['kty'])}; only OKP (Ed25519) and RSA are allowed`];
}

function usageProblems(key: Record<string, unknown>): string[] {
  const problems: string[] = [];
  const alg = key['alg'];
  const expected = key['kty'] === 'RSA' ? 'RS256' : 'EdDSA';
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
