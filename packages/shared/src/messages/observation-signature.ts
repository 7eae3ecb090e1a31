/**
 * The gate's signature on observations (DESIGN §2): Ed25519 over the topic an observation was
 * written to and its exact bytes, so that an agent client, which holds only public keys, can tell
 * an observation of the gate from one written by anything else, and one copied to another
 * tenant's topic. Asymmetric on purpose: agents are many and outside the gate, and what they hold
 * must not let them sign.
 */
import {
  createHash,
  createPrivateKey,
  createPublicKey,
  sign,
  verify,
  type KeyObject,
} from 'node:crypto';
import { ConfigError } from '../auth/index.js';

/** Carries `<key id>.<signature>` (16 hex characters, a dot, base64url) on every observation. */
export const OBSERVATION_SIGNATURE_HEADER = 'toolgate-signature';

const TOPIC_END = Buffer.from([0]);
const SIGNATURE = /^([0-9a-f]{16})\.([A-Za-z0-9_-]{86})$/;

/** Signs observations with the stages' private key. */
export interface ObservationSigner {
  /** The key's id: the first 16 hex characters of SHA-256 over its public key (SPKI DER). */
  readonly keyId: string;
  /** The header value for a record of `bytes` on `topic` (the full topic name). */
  sign(topic: string, bytes: Uint8Array): string;
}

/** Verifies observations with the public keys an agent trusts. */
export type ObservationVerifier = (
  topic: string,
  bytes: Uint8Array | null,
  header: string | undefined,
) => boolean;

/** The id of a public key: 16 hex characters of SHA-256 over its SPKI DER. */
function keyIdOf(publicKey: KeyObject): string {
  const der = publicKey.export({ type: 'spki', format: 'der' });
  return createHash('sha256').update(der).digest('hex').slice(0, 16);
}

function signedBytes(topic: string, bytes: Uint8Array): Buffer {
  return Buffer.concat([Buffer.from(topic, 'utf8'), TOPIC_END, bytes]);
}

/** Every problem with an observation signing key (base64 of PKCS#8 DER, Ed25519); never the key. */
export function observationKeyProblems(key: unknown): string[] {
  try {
    privateKeyOf(key);
    return [];
  } catch (error) {
    return [error instanceof Error ? error.message : 'the observation key is not usable'];
  }
}

function privateKeyOf(key: unknown): KeyObject {
  if (typeof key !== 'string' || key.trim() === '') {
    throw new TypeError('the observation key is empty');
  }
  let parsed: KeyObject;
  try {
    parsed = createPrivateKey({ key: Buffer.from(key, 'base64'), format: 'der', type: 'pkcs8' });
  } catch {
    throw new TypeError('the observation key is not base64 of a PKCS#8 DER private key');
  }
  if (parsed.asymmetricKeyType !== 'ed25519') {
    throw new TypeError(`the observation key is ${String(parsed.asymmetricKeyType)}, not Ed25519`);
  }
  return parsed;
}

/**
 * A signer for `key` (TOOLGATE_OBSERVATION_KEY: base64 of an Ed25519 PKCS#8 DER private key).
 *
 * @throws ConfigError naming the problem (never the key).
 */
export function createObservationSigner(key: string): ObservationSigner {
  let privateKey: KeyObject;
  try {
    privateKey = privateKeyOf(key);
  } catch (error) {
    throw new ConfigError('observation key', [(error as Error).message]);
  }
  const keyId = keyIdOf(createPublicKey(privateKey));
  return {
    keyId,
    sign: (topic, bytes) =>
      `${keyId}.${sign(null, signedBytes(topic, bytes), privateKey).toString('base64url')}`,
  };
}

/** Every problem with a list of observation public keys (base64 of SPKI DER, Ed25519). */
export function observationPublicKeyProblems(keys: readonly unknown[]): string[] {
  if (keys.length === 0) return ['at least one observation public key is needed'];
  return keys.flatMap((key, i) => {
    try {
      publicKeyOf(key);
      return [];
    } catch (error) {
      return [`observation public key ${i + 1}: ${(error as Error).message}`];
    }
  });
}

function publicKeyOf(key: unknown): KeyObject {
  if (typeof key !== 'string' || key.trim() === '') throw new TypeError('it is empty');
  let parsed: KeyObject;
  try {
    parsed = createPublicKey({ key: Buffer.from(key, 'base64'), format: 'der', type: 'spki' });
  } catch {
    throw new TypeError('it is not base64 of an SPKI DER public key');
  }
  if (parsed.asymmetricKeyType !== 'ed25519') {
    throw new TypeError(`it is ${String(parsed.asymmetricKeyType)}, not Ed25519`);
  }
  return parsed;
}

/**
 * A verifier trusting `publicKeys` (TOOLGATE_OBSERVATION_PUBLIC_KEYS; several during a rotation).
 * Fails closed: no header, a malformed one, a key id it does not hold or a signature that does
 * not verify for exactly these bytes on exactly this topic is false.
 *
 * @throws ConfigError naming every problem with the keys.
 */
export function createObservationVerifier(publicKeys: readonly string[]): ObservationVerifier {
  const problems = observationPublicKeyProblems(publicKeys);
  if (problems.length > 0) throw new ConfigError('observation public keys', problems);
  const byId = new Map(
    publicKeys.map((key) => {
      const parsed = publicKeyOf(key);
      return [keyIdOf(parsed), parsed] as const;
    }),
  );
  return (topic, bytes, header) => {
    const match = header === undefined || bytes === null ? null : SIGNATURE.exec(header);
    const key = match?.[1] === undefined ? undefined : byId.get(match[1]);
    if (match?.[2] === undefined || key === undefined || bytes === null) return false;
    return verify(null, signedBytes(topic, bytes), key, Buffer.from(match[2], 'base64url'));
  };
}

/** The public key (base64 SPKI DER) of a signing key, for an agent's configuration. */
export function observationPublicKeyOf(key: string): string {
  return createPublicKey(privateKeyOf(key))
    .export({ type: 'spki', format: 'der' })
    .toString('base64');
}
