import { describe, expect, it } from 'vitest';
import { mintSession } from '@toolgate/shared';
import { USERS } from '../data.js';
import { tenantOfToken } from './demo-agents.js';

describe('tenantOfToken', () => {
  it("reads the tenant a session names, so that carol's proposals go through globex's client", async () => {
    const options = { now: new Date(), ttlSeconds: 60, issuer: 'toolgate-example' };
    const secret = 'a-secret-for-this-test-only-000000000000';
    expect(tenantOfToken(await mintSession(USERS.carol, secret, options))).toBe('globex');
    expect(tenantOfToken(await mintSession(USERS.bob, secret, options))).toBe('acme');
  });

  it('names no tenant for a token it cannot read', () => {
    expect(tenantOfToken('not-a-token')).toBe('');
    expect(tenantOfToken('a.!!!.c')).toBe('');
    expect(tenantOfToken(`x.${Buffer.from('null').toString('base64url')}.y`)).toBe('');
  });
});
