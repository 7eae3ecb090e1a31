import { generateKeyPairSync } from 'node:crypto';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWTPayload } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { REJECTION_CODES } from '../catalogue.js';
import type { Decision } from '../decision.js';
import type { Principal } from '../types.js';
import { ConfigError } from './config-error.js';
import { SessionKeysUnavailable, staticJwksSource, type JwksSource } from './jwks-source.js';
import { mintSession } from './mint-session.js';
import { createSessionVerifier, MAX_SESSION_TOKEN_CHARS } from './session-verifier.js';

const SECRET = 'a-development-secret-of-32-bytes!';
const ISSUER = 'https://id.example.test';
const alice: Principal = { subject: 'alice', tenant: 'acme', roles: ['approver'] };
const T0 = new Date('2025-03-01T12:00:00.000Z');
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);
const epoch = (date: Date) => Math.floor(date.getTime() / 1000);

const mint = (claims: Principal = alice, ttlSeconds = 600) =>
  mintSession(claims, SECRET, { now: T0, ttlSeconds, issuer: ISSUER });

/** Signs arbitrary claims, for tokens the minting helper would never produce. */
const signHs256 = (payload: JWTPayload, secret = SECRET) =>
  new SignJWT(payload).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode(secret));

const validClaims = (): JWTPayload => ({
  sub: 'alice',
  tenant: 'acme',
  roles: ['approver'],
  iss: ISSUER,
  aud: 'toolgate',
  iat: epoch(T0),
  exp: epoch(T0) + 600,
});

function expectRefusal(
  decision: Decision<Principal, 'authentication'>,
  code: keyof (typeof REJECTION_CODES)['authentication'],
): string {
  const { disposition } = REJECTION_CODES.authentication[code];
  expect(decision).toMatchObject({ ok: false, stage: 'authentication', code, disposition });
  if (decision.ok) throw new Error('unreachable');
  expect(decision.publicMessage).toBe(REJECTION_CODES.authentication[code].publicMessage);
  return decision.internalDetail;
}

describe('createSessionVerifier with an HS256 secret', () => {
  const verifier = createSessionVerifier({ secret: SECRET, issuer: ISSUER });

  it('accepts a minted session and returns the principal of its claims', async () => {
    const decision = await verifier.verify(await mint(), at(1));
    expect(decision).toEqual({ ok: true, value: alice });
  });

  it('refuses a missing or empty token as missing_session', async () => {
    expectRefusal(await verifier.verify(undefined, T0), 'missing_session');
    expectRefusal(await verifier.verify('', T0), 'missing_session');
  });

  it('refuses a token at or after its exp as expired_session', async () => {
    const token = await mint(alice, 60);
    expect((await verifier.verify(token, at(59))).ok).toBe(true);
    expectRefusal(
      await createSessionVerifier({ secret: SECRET, issuer: ISSUER }).verify(token, at(60)),
      'expired_session',
    );
  });

  it('refuses a token signed with another secret without saying why in public', async () => {
    const forged = await signHs256(validClaims(), 'another-secret-that-is-32-bytes-long');
    const detail = expectRefusal(await verifier.verify(forged, T0), 'invalid_session');
    expect(detail).toMatch(/signature/i);
  });

  it('refuses a forged token as invalid even when it is also expired', async () => {
    const forged = await signHs256(validClaims(), 'another-secret-that-is-32-bytes-long');
    expectRefusal(await verifier.verify(forged, at(3600)), 'invalid_session');
  });

  it('refuses an unsigned token (alg none)', async () => {
    const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const unsigned = `${b64({ alg: 'none', typ: 'JWT' })}.${b64(validClaims())}.`;
    const detail = expectRefusal(await verifier.verify(unsigned, T0), 'invalid_session');
    expect(detail).toMatch(/alg/i);
  });

  it('refuses a token for another audience, or for none', async () => {
    expectRefusal(
      await verifier.verify(await signHs256({ ...validClaims(), aud: 'other' }), T0),
      'invalid_session',
    );
    const { aud: _aud, ...withoutAud } = validClaims();
    expectRefusal(await verifier.verify(await signHs256(withoutAud), T0), 'invalid_session');
  });

  it('refuses a token without exp as invalid, not expired', async () => {
    const { exp: _exp, ...withoutExp } = validClaims();
    const detail = expectRefusal(
      await verifier.verify(await signHs256(withoutExp), T0),
      'invalid_session',
    );
    expect(detail).toMatch(/exp/);
  });

  it.each([
    ['sub missing', { sub: undefined }, /sub/],
    ['sub empty', { sub: '' }, /sub/],
    ['tenant missing', { tenant: undefined }, /tenant/],
    ['tenant not a string', { tenant: 42 }, /tenant/],
    ['tenant empty', { tenant: '' }, /tenant/],
    ['roles missing', { roles: undefined }, /roles/],
    ['roles a string', { roles: 'approver' }, /roles/],
    ['roles holding a number', { roles: ['approver', 7] }, /roles/],
    ['roles holding an empty name', { roles: [''] }, /roles/],
  ])('refuses claims with %s', async (_name, change, detailPattern) => {
    const claims: Record<string, unknown> = { ...validClaims(), ...change };
    for (const key of Object.keys(change)) if (claims[key] === undefined) delete claims[key];
    const detail = expectRefusal(
      await verifier.verify(await signHs256(claims), T0),
      'invalid_session',
    );
    expect(detail).toMatch(detailPattern);
  });

  it('accepts an empty roles array', async () => {
    const decision = await verifier.verify(await signHs256({ ...validClaims(), roles: [] }), T0);
    expect(decision).toEqual({ ok: true, value: { subject: 'alice', tenant: 'acme', roles: [] } });
  });

  it('refuses a token longer than the bound before decoding it', async () => {
    const detail = expectRefusal(
      await verifier.verify('x'.repeat(MAX_SESSION_TOKEN_CHARS + 1), T0),
      'invalid_session',
    );
    expect(detail).toMatch(/exceeds/);
  });

  it('refuses garbage that is not a JWS', async () => {
    expectRefusal(await verifier.verify('not.a.token', T0), 'invalid_session');
    expectRefusal(await verifier.verify('plain', T0), 'invalid_session');
  });

  it('accepts an expired token within the configured clock tolerance', async () => {
    const tolerant = createSessionVerifier({
      secret: SECRET,
      issuer: ISSUER,
      clockSkewSeconds: 30,
    });
    const token = await mint(alice, 60);
    expect((await tolerant.verify(token, at(89))).ok).toBe(true);
    expectRefusal(await tolerant.verify(token, at(90)), 'expired_session');
  });

  it('never puts the token or the secret in any refusal', async () => {
    const token = await mint(alice, 60);
    const refusals = [
      await verifier.verify(token, at(61)),
      await verifier.verify(await signHs256({ ...validClaims(), aud: 'x' }), T0),
      await verifier.verify(`${token}x`, T0),
    ];
    for (const refusal of refusals) {
      expect(refusal.ok).toBe(false);
      const text = JSON.stringify(refusal);
      expect(text).not.toContain(SECRET);
      expect(text).not.toContain(token.split('.')[2]);
    }
  });
});

describe('SessionVerifier cache', () => {
  it('answers a repeated token from the cache', async () => {
    const verifier = createSessionVerifier({ secret: SECRET, issuer: ISSUER });
    const token = await mint();
    const first = await verifier.verify(token, T0);
    const second = await verifier.verify(token, at(10));
    expect(first.ok && second.ok).toBe(true);
    if (first.ok && second.ok) expect(second.value).toBe(first.value);
  });

  it('treats a cached entry past its exp as expired', async () => {
    const verifier = createSessionVerifier({ secret: SECRET, issuer: ISSUER });
    const token = await mint(alice, 60);
    expect((await verifier.verify(token, T0)).ok).toBe(true);
    expectRefusal(await verifier.verify(token, at(60)), 'expired_session');
    expectRefusal(await verifier.verify(token, at(61)), 'expired_session');
  });

  it('does not serve a cached token before its nbf', async () => {
    const verifier = createSessionVerifier({ secret: SECRET, issuer: ISSUER });
    const token = await signHs256({ ...validClaims(), nbf: epoch(T0) + 100 });
    expectRefusal(await verifier.verify(token, T0), 'invalid_session');
    expect((await verifier.verify(token, at(100))).ok).toBe(true);
    expectRefusal(await verifier.verify(token, at(99)), 'invalid_session');
  });

  it('re-verifies a token the bounded cache evicted', async () => {
    const verifier = createSessionVerifier({ secret: SECRET, issuer: ISSUER }, { cacheSize: 1 });
    const [a, b] = [await mint(alice), await mint({ ...alice, subject: 'bob' })];
    const first = await verifier.verify(a, T0);
    await verifier.verify(b, T0);
    const again = await verifier.verify(a, T0);
    expect(first.ok && again.ok).toBe(true);
    if (first.ok && again.ok) {
      expect(again.value).toEqual(first.value);
      expect(again.value).not.toBe(first.value);
    }
  });

  it('keeps nothing when the cache size is 0', async () => {
    const verifier = createSessionVerifier({ secret: SECRET, issuer: ISSUER }, { cacheSize: 0 });
    const token = await mint();
    const [first, second] = [await verifier.verify(token, T0), await verifier.verify(token, T0)];
    if (!first.ok || !second.ok) throw new Error('expected both to verify');
    expect(second.value).not.toBe(first.value);
  });
});

describe('createSessionVerifier with a JWKS', () => {
  let ed: { privateKey: CryptoKey; jwk: Record<string, unknown> };
  let rsa: { privateKey: CryptoKey; jwk: Record<string, unknown> };
  let ec: { privateKey: CryptoKey; jwk: Record<string, unknown> };

  beforeAll(async () => {
    const ecPair = await generateKeyPair('ES256');
    ec = {
      privateKey: ecPair.privateKey,
      jwk: { ...(await exportJWK(ecPair.publicKey)), kid: 'ec-1', alg: 'ES256' },
    };
    const edPair = await generateKeyPair('EdDSA', { crv: 'Ed25519' });
    ed = {
      privateKey: edPair.privateKey,
      jwk: { ...(await exportJWK(edPair.publicKey)), kid: 'ed-1' },
    };
    const rsaPair = await generateKeyPair('RS256', { modulusLength: 2048 });
    rsa = {
      privateKey: rsaPair.privateKey,
      jwk: { ...(await exportJWK(rsaPair.publicKey)), kid: 'rsa-1', alg: 'RS256' },
    };
  });

  const sign = (alg: string, key: CryptoKey | Uint8Array, kid?: string) =>
    new SignJWT(validClaims())
      .setProtectedHeader(kid === undefined ? { alg } : { alg, kid })
      .sign(key);

  it('accepts EdDSA and RS256 tokens signed by a listed key', async () => {
    const verifier = createSessionVerifier({ issuer: ISSUER, jwks: { keys: [ed.jwk, rsa.jwk] } });
    expect(await verifier.verify(await sign('EdDSA', ed.privateKey, 'ed-1'), T0)).toEqual({
      ok: true,
      value: alice,
    });
    expect(await verifier.verify(await sign('RS256', rsa.privateKey, 'rsa-1'), T0)).toEqual({
      ok: true,
      value: alice,
    });
  });

  it('accepts an ES256 token signed by a listed P-256 key, and refuses ES384 from it', async () => {
    const verifier = createSessionVerifier({ issuer: ISSUER, jwks: { keys: [ec.jwk] } });
    expect(await verifier.verify(await sign('ES256', ec.privateKey, 'ec-1'), T0)).toEqual({
      ok: true,
      value: alice,
    });
    const p384 = await generateKeyPair('ES384');
    expectRefusal(
      await verifier.verify(await sign('ES384', p384.privateKey), T0),
      'invalid_session',
    );
  });

  it('refuses a token signed by a key that is not listed', async () => {
    const verifier = createSessionVerifier({ issuer: ISSUER, jwks: { keys: [ed.jwk] } });
    const other = await generateKeyPair('EdDSA', { crv: 'Ed25519' });
    expectRefusal(
      await verifier.verify(await sign('EdDSA', other.privateKey), T0),
      'invalid_session',
    );
  });

  it('refuses HS256 signed with the public key bytes (algorithm confusion)', async () => {
    const jwksOnly = createSessionVerifier({ issuer: ISSUER, jwks: { keys: [rsa.jwk] } });
    const publicBytes = new TextEncoder().encode(JSON.stringify(rsa.jwk));
    const confused = await sign('HS256', publicBytes, 'rsa-1');
    const detail = expectRefusal(await jwksOnly.verify(confused, T0), 'invalid_session');
    expect(detail).toMatch(/alg/i);
    const both = createSessionVerifier({
      secret: SECRET,
      issuer: ISSUER,
      jwks: { keys: [rsa.jwk] },
    });
    expectRefusal(await both.verify(confused, T0), 'invalid_session');
  });

  it('refuses an RS256 token when only a secret is configured', async () => {
    const secretOnly = createSessionVerifier({ secret: SECRET, issuer: ISSUER });
    expectRefusal(
      await secretOnly.verify(await sign('RS256', rsa.privateKey), T0),
      'invalid_session',
    );
  });

  it('accepts tokens from either key when a secret and a JWKS are both configured', async () => {
    const both = createSessionVerifier({
      secret: SECRET,
      issuer: ISSUER,
      jwks: { keys: [ed.jwk] },
    });
    expect((await both.verify(await mint(), T0)).ok).toBe(true);
    expect((await both.verify(await sign('EdDSA', ed.privateKey), T0)).ok).toBe(true);
  });
});

describe('createSessionVerifier configuration', () => {
  const problemsOf = (run: () => unknown): readonly string[] => {
    try {
      run();
    } catch (error) {
      if (error instanceof ConfigError) return error.problems;
      throw error;
    }
    throw new Error('expected a ConfigError');
  };
  const rsaJwk = (bits: number) =>
    generateKeyPairSync('rsa', { modulusLength: bits }).publicKey.export({ format: 'jwk' });

  it('refuses when neither key is given', () => {
    expect(problemsOf(() => createSessionVerifier({ issuer: ISSUER }))).toEqual([
      expect.stringMatching(
        /^no key to verify session tokens with: give .*jwksUrl.*TOOLGATE_SESSION_SECRET/,
      ),
    ]);
  });

  it('refuses a secret shorter than 32 bytes, counting UTF-8 bytes', () => {
    expect(
      problemsOf(() => createSessionVerifier({ secret: 'x'.repeat(31), issuer: ISSUER }))[0],
    ).toMatch(/31 bytes/);
    expect(() => createSessionVerifier({ secret: 'é'.repeat(16), issuer: ISSUER })).not.toThrow();
  });

  it('lists every problem at once and never the secret', () => {
    const short = 'short-secret';
    const error = (() => {
      try {
        createSessionVerifier(
          { secret: short, jwks: { keys: [] }, clockSkewSeconds: Number.NaN, audience: '' },
          { cacheSize: -1 },
        );
      } catch (e) {
        return e as ConfigError;
      }
      throw new Error('expected a ConfigError');
    })();
    expect(error).toBeInstanceOf(ConfigError);
    expect(error).toMatchObject({ code: 'config_error', retriable: false });
    expect(error.problems).toHaveLength(6);
    expect(error.message).not.toContain(short);
  });

  it.each([
    [
      'a private key',
      () => ({ ...generateKeyPairSync('ed25519').privateKey.export({ format: 'jwk' }) }),
      /private/,
    ],
    ['a symmetric key', () => ({ kty: 'oct', k: 'c2VjcmV0' }), /key type oct/],
    [
      'an EC key of another curve than P-256',
      () => ({
        ...generateKeyPairSync('ec', { namedCurve: 'P-384' }).publicKey.export({ format: 'jwk' }),
      }),
      /curve P-384/,
    ],
    [
      'a P-256 key declaring ES384',
      () => ({
        ...generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ format: 'jwk' }),
        alg: 'ES384',
      }),
      /alg ES384/,
    ],
    [
      'an X25519 key',
      () => ({ ...generateKeyPairSync('x25519').publicKey.export({ format: 'jwk' }) }),
      /curve X25519/,
    ],
    ['a 1024-bit RSA key', () => ({ ...rsaJwk(1024) }), /1024-bit/],
    ['an RSA key declaring HS256', () => ({ ...rsaJwk(2048), alg: 'HS256' }), /alg HS256/],
    ['an encryption key', () => ({ ...rsaJwk(2048), use: 'enc' }), /use/],
    ['a key not allowed to verify', () => ({ ...rsaJwk(2048), key_ops: ['encrypt'] }), /key_ops/],
    [
      'a malformed Ed25519 key',
      () => ({ kty: 'OKP', crv: 'Ed25519', x: 'AAAA' }),
      /cannot be imported/,
    ],
  ])('refuses a JWKS holding %s', (_name, key, pattern) => {
    const problems = problemsOf(() =>
      createSessionVerifier({ issuer: ISSUER, jwks: { keys: [key()] } }),
    );
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(pattern);
  });

  it('refuses a JWKS without keys', () => {
    expect(problemsOf(() => createSessionVerifier({ issuer: ISSUER, jwks: { keys: [] } }))).toEqual(
      ['the JWKS has no keys'],
    );
  });
});

describe('createSessionVerifier claims', () => {
  const verifier = createSessionVerifier({
    secret: SECRET,
    issuer: [ISSUER, 'https://other.test'],
  });
  const without = (claim: string): JWTPayload => {
    const claims: JWTPayload = validClaims();
    delete claims[claim];
    return claims;
  };

  it('accepts every issuer of the configured list, and no other', async () => {
    const other = await signHs256({ ...validClaims(), iss: 'https://other.test' });
    expect((await verifier.verify(other, T0)).ok).toBe(true);
    const wrong = await signHs256({ ...validClaims(), iss: 'https://evil.test' });
    expect(expectRefusal(await verifier.verify(wrong, T0), 'invalid_session')).toMatch(/"iss"/);
    const none = await signHs256(without('iss'));
    expect(expectRefusal(await verifier.verify(none, T0), 'invalid_session')).toMatch(/"iss"/);
  });

  it('refuses a token without iat, saying which claim', async () => {
    const detail = expectRefusal(
      await verifier.verify(await signHs256(without('iat')), T0),
      'invalid_session',
    );
    expect(detail).toMatch(/claim "iat" missing/);
  });

  it('refuses a token valid for ten years, and accepts one of exactly the longest lifetime', async () => {
    const decade = await signHs256({ ...validClaims(), exp: epoch(T0) + 10 * 365 * 24 * 3600 });
    expect(expectRefusal(await verifier.verify(decade, at(1)), 'invalid_session')).toMatch(
      /lifetime exp - iat of 315360000 s exceeds the deployment's longest, 86400 s/,
    );
    const day = await signHs256({ ...validClaims(), exp: epoch(T0) + 86_400 });
    expect((await verifier.verify(day, at(1))).ok).toBe(true);
    const short = createSessionVerifier({ secret: SECRET, issuer: ISSUER, maxLifetimeSeconds: 60 });
    expectRefusal(await short.verify(await mint(alice, 61), T0), 'invalid_session');
  });

  it('refuses a token issued in the future beyond the clock skew', async () => {
    const ahead = await signHs256({ ...validClaims(), iat: epoch(T0) + 20, exp: epoch(T0) + 600 });
    expect(expectRefusal(await verifier.verify(ahead, T0), 'invalid_session')).toMatch(/"iat"/);
    const skewed = createSessionVerifier({ secret: SECRET, issuer: ISSUER, clockSkewSeconds: 30 });
    expect((await skewed.verify(ahead, T0)).ok).toBe(true);
  });

  it('checks typ when the deployment names one', async () => {
    const typed = createSessionVerifier({ secret: SECRET, issuer: ISSUER, typ: 'at+jwt' });
    const sign = (typ: string | undefined) =>
      new SignJWT(validClaims())
        .setProtectedHeader(typ === undefined ? { alg: 'HS256' } : { alg: 'HS256', typ })
        .sign(new TextEncoder().encode(SECRET));
    expect((await typed.verify(await sign('application/at+jwt'), T0)).ok).toBe(true);
    expect(expectRefusal(await typed.verify(await sign('JWT'), T0), 'invalid_session')).toMatch(
      /typ/,
    );
    expectRefusal(await typed.verify(await sign(undefined), T0), 'invalid_session');
  });

  it('checks the configured audience', async () => {
    const own = createSessionVerifier({ secret: SECRET, issuer: ISSUER, audience: 'billing-api' });
    const token = await signHs256({ ...validClaims(), aud: 'billing-api' });
    expect((await own.verify(token, T0)).ok).toBe(true);
    expectRefusal(await own.verify(await mint(), T0), 'invalid_session');
  });

  it('refuses at start a deployment without an issuer, or with bad claim rules', () => {
    const problems = (() => {
      try {
        createSessionVerifier({
          secret: SECRET,
          issuer: [],
          maxLifetimeSeconds: 0,
          clockSkewSeconds: 3600,
          jwksUrl: 'http://idp.example.test/jwks',
        });
      } catch (error) {
        if (error instanceof ConfigError) return error.problems;
      }
      return [];
    })();
    expect(problems).toEqual([
      expect.stringMatching(/issuer must be a non-empty string .*TOOLGATE_SESSION_ISSUER/),
      expect.stringMatching(/maxLifetimeSeconds/),
      expect.stringMatching(/clockSkewSeconds/),
      expect.stringMatching(/jwksUrl must be https:/),
      expect.stringMatching(/read by the gate's runtime/),
    ]);
  });
});

describe('createSessionVerifier with a JWKS source', () => {
  let ed: { privateKey: CryptoKey; jwk: Record<string, unknown> };
  beforeAll(async () => {
    const pair = await generateKeyPair('EdDSA', { crv: 'Ed25519' });
    ed = { privateKey: pair.privateKey, jwk: { ...(await exportJWK(pair.publicKey)), kid: 'k1' } };
  });
  const signEd = () =>
    new SignJWT(validClaims()).setProtectedHeader({ alg: 'EdDSA', kid: 'k1' }).sign(ed.privateKey);

  /** A source whose keys the test swaps, as a rotated file or a fetched URL would. */
  function swappable(keys: Record<string, unknown>[]) {
    let set = staticJwksSource({ keys: keys });
    let generation = 0;
    let down = false;
    const source: JwksSource = {
      getKey: (header, token) =>
        down
          ? Promise.reject(new SessionKeysUnavailable('the JWKS at http://idp did not answer'))
          : set.getKey(header, token),
      generation: () => Promise.resolve(down ? Number.NaN : generation),
    };
    return {
      source,
      swap(next: Record<string, unknown>[]) {
        set = staticJwksSource({ keys: next });
        generation += 1;
      },
      setDown(value: boolean) {
        down = value;
      },
    };
  }

  it('refuses a cached token once its key is removed from the set', async () => {
    const keys = swappable([ed.jwk]);
    const verifier = createSessionVerifier(
      { issuer: ISSUER, jwksFile: '/etc/toolgate/jwks.json' },
      { jwksSource: keys.source },
    );
    const token = await signEd();
    expect((await verifier.verify(token, T0)).ok).toBe(true);
    keys.swap([{ ...ed.jwk, kid: 'k2', x: rsaFreeX() }]);
    expectRefusal(await verifier.verify(token, T0), 'invalid_session');
  });

  it('refuses as session_keys_unavailable, not as a bad token, when the keys cannot be had', async () => {
    const keys = swappable([ed.jwk]);
    const verifier = createSessionVerifier(
      { issuer: ISSUER, jwksUrl: 'https://idp.example.test/jwks' },
      { jwksSource: keys.source },
    );
    const token = await signEd();
    expect((await verifier.verify(token, T0)).ok).toBe(true);
    keys.setDown(true);
    const detail = expectRefusal(await verifier.verify(token, T0), 'session_keys_unavailable');
    expect(detail).toMatch(/did not answer/);
    keys.setDown(false);
    expect((await verifier.verify(token, T0)).ok).toBe(true);
  });
});

/** The public half of another Ed25519 key, for a set that no longer holds the signing key. */
function rsaFreeX(): string {
  const jwk = generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' });
  return String(jwk.x);
}

describe('mintSession', () => {
  it('sets iat to now and exp to now plus the lifetime, in whole seconds', async () => {
    const token = await mintSession(alice, SECRET, {
      now: new Date(T0.getTime() + 999),
      ttlSeconds: 90,
      issuer: ISSUER,
    });
    const payload = JSON.parse(
      Buffer.from(token.split('.')[1] ?? '', 'base64url').toString(),
    ) as JWTPayload;
    expect(payload).toEqual({
      sub: 'alice',
      tenant: 'acme',
      roles: ['approver'],
      iss: ISSUER,
      aud: 'toolgate',
      iat: epoch(T0),
      exp: epoch(T0) + 90,
    });
  });

  it('refuses a short secret and a non-positive lifetime', async () => {
    await expect(
      mintSession(alice, 'short', { now: T0, ttlSeconds: 60, issuer: ISSUER }),
    ).rejects.toBeInstanceOf(ConfigError);
    await expect(
      mintSession(alice, SECRET, { now: T0, ttlSeconds: 0, issuer: ISSUER }),
    ).rejects.toBeInstanceOf(ConfigError);
  });
});
