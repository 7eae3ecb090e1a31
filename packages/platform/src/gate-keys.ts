/**
 * Making the gate's keys: random secrets for the integrity and command keys, an Ed25519 pair for
 * observations. For `toolgate keys`, the local stack and tests; a deployment keeps them in its
 * secret store.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { createObservationSigner, type ObservationSigner } from '@toolgate/shared';
import type { OutputKeys } from './gate-outputs.js';

/** A random key of 32 bytes as 43 base64url characters (TOOLGATE_INTEGRITY_KEY, _COMMAND_KEY). */
export function generateSecretKey(): string {
  return randomBytes(32).toString('base64url');
}

/** An observation key pair: base64 of PKCS#8 DER (stages) and of SPKI DER (agents). */
export interface ObservationKeyPair {
  /** TOOLGATE_OBSERVATION_KEY. A secret. */
  readonly privateKey: string;
  /** One entry of TOOLGATE_OBSERVATION_PUBLIC_KEYS. */
  readonly publicKey: string;
}

/** A fresh Ed25519 pair for signing observations. */
export function generateObservationKeys(): ObservationKeyPair {
  const pair = generateKeyPairSync('ed25519');
  return {
    privateKey: pair.privateKey.export({ type: 'pkcs8', format: 'der' }).toString('base64'),
    publicKey: pair.publicKey.export({ type: 'spki', format: 'der' }).toString('base64'),
  };
}

/** Fresh keys of every kind, for a gate under test; the public half of the observation pair too. */
export function generateOutputKeys(): OutputKeys & {
  readonly commandKey: string;
  readonly observationSigner: ObservationSigner;
  readonly observationKeys: ObservationKeyPair;
} {
  const observationKeys = generateObservationKeys();
  return {
    integrityKey: generateSecretKey(),
    commandKey: generateSecretKey(),
    observationSigner: createObservationSigner(observationKeys.privateKey),
    observationKeys,
  };
}
