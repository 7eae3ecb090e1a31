import { describe, expect, it } from 'vitest';
import type { Principal } from '../types.js';
import { claimedPrincipal } from './claimed-principal.js';
import { mintSession } from './mint-session.js';
import { MAX_SESSION_TOKEN_CHARS } from './session-verifier.js';

const alice: Principal = { subject: 'alice', tenant: 'acme', roles: ['approver'] };
const SECRET = 'a-secret-that-nobody-here-verifies-with';
const segment = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

describe('claimedPrincipal', () => {
  it('reads the claims of a token whatever its signature and expiry', async () => {
    const long = new Date('2020-01-01T00:00:00Z');
    const expired = await mintSession(alice, SECRET, {
      now: long,
      ttlSeconds: 60,
      issuer: 'https://id.example.test',
    });
    expect(claimedPrincipal(expired)).toEqual(alice);
  });

  it('names nobody for a token without a principal in its claims, or no token at all', () => {
    const header = segment({ alg: 'HS256' });
    const claims = { sub: 'alice', tenant: 'acme', roles: ['approver'] };
    expect(claimedPrincipal(`${header}.${segment(claims)}.sig`)).toEqual(alice);
    expect(claimedPrincipal(`${header}.${segment({ ...claims, tenant: '' })}.sig`)).toBeUndefined();
    expect(claimedPrincipal(`${header}.${segment([claims])}.sig`)).toBeUndefined();
    expect(claimedPrincipal(`${header}.${segment(claims)}`)).toBeUndefined();
    expect(claimedPrincipal(`${header}.not-json.sig`)).toBeUndefined();
    const padded = `${header}.${segment({ ...claims, pad: 'x'.repeat(MAX_SESSION_TOKEN_CHARS) })}.s`;
    expect(claimedPrincipal(padded)).toBeUndefined();
    expect(claimedPrincipal(undefined)).toBeUndefined();
    expect(claimedPrincipal('')).toBeUndefined();
  });
});
