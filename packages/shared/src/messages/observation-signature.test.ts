import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../auth/index.js';
import {
  createObservationSigner,
  createObservationVerifier,
  observationKeyProblems,
  observationPublicKeyOf,
  observationPublicKeyProblems,
} from './observation-signature.js';

function pair(type: 'ed25519' | 'ec' = 'ed25519') {
  const { privateKey, publicKey } =
    type === 'ec'
      ? generateKeyPairSync('ec', { namedCurve: 'P-256' })
      : generateKeyPairSync('ed25519');
  return {
    privateKey: privateKey.export({ type: 'pkcs8', format: 'der' }).toString('base64'),
    publicKey: publicKey.export({ type: 'spki', format: 'der' }).toString('base64'),
  };
}

const TOPIC = 'toolgate.observations.acme';
const bytes = Buffer.from('{"proposalId":"p1","outcome":"rejected"}');

describe('observation signatures', () => {
  const gate = pair();
  const signer = createObservationSigner(gate.privateKey);
  const header = signer.sign(TOPIC, bytes);

  it('verify with the public key for exactly these bytes on exactly this topic', () => {
    const verify = createObservationVerifier([gate.publicKey]);
    expect(header).toMatch(/^[0-9a-f]{16}\.[A-Za-z0-9_-]{86}$/);
    expect(verify(TOPIC, bytes, header)).toBe(true);
    expect(verify(TOPIC, Buffer.from('{"proposalId":"p1","outcome":"result"}'), header)).toBe(
      false,
    );
    expect(verify('toolgate.observations.globex', bytes, header)).toBe(false);
  });

  it('refuse no signature, a malformed one, no bytes, and a key the agent does not trust', () => {
    const verify = createObservationVerifier([gate.publicKey]);
    expect(verify(TOPIC, bytes, undefined)).toBe(false);
    expect(verify(TOPIC, bytes, 'not-a-signature')).toBe(false);
    expect(verify(TOPIC, null, header)).toBe(false);
    const other = createObservationSigner(pair().privateKey).sign(TOPIC, bytes);
    expect(verify(TOPIC, bytes, other)).toBe(false);
  });

  it('verify under any trusted key during a rotation', () => {
    const next = pair();
    const verify = createObservationVerifier([gate.publicKey, next.publicKey]);
    expect(verify(TOPIC, bytes, createObservationSigner(next.privateKey).sign(TOPIC, bytes))).toBe(
      true,
    );
    expect(verify(TOPIC, bytes, header)).toBe(true);
  });

  it('give the public key of a signing key, for the agents', () => {
    expect(observationPublicKeyOf(gate.privateKey)).toBe(gate.publicKey);
  });

  it('refuse keys that are not Ed25519 or not keys, without quoting them', () => {
    expect(observationKeyProblems('c2VjcmV0LWJ1dC1ub3QtYS1rZXk=')).toEqual([
      'the observation key is not base64 of a PKCS#8 DER private key',
    ]);
    expect(observationKeyProblems(pair('ec').privateKey)).toEqual([
      'the observation key is ec, not Ed25519',
    ]);
    expect(observationPublicKeyProblems([gate.publicKey, 'bm9wZQ=='])).toEqual([
      'observation public key 2: it is not base64 of an SPKI DER public key',
    ]);
    expect(observationPublicKeyProblems([])).toEqual([
      'at least one observation public key is needed',
    ]);
    expect(() => createObservationSigner('bm9wZQ==')).toThrow(ConfigError);
  });
});
