import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { idempotencyKey, idempotencyRedisKey, tenantHashTag } from './idempotency-key.js';

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** The key of (tenant, subject, requestId, callId), positionally, for brevity. */
const keyOf = (tenant: string, subject: string, requestId: string, callId: string) =>
  idempotencyKey({ tenant, subject, requestId, callId });

describe('idempotencyKey', () => {
  it('is the SHA-256 of the canonical JSON of [tenant, subject, requestId, callId]', () => {
    expect(keyOf('acme', 'alice', 'req-42', 'call_abc')).toBe(
      sha256('["acme","alice","req-42","call_abc"]'),
    );
  });

  it('gives two users of one tenant two keys for the same request and call ids', () => {
    expect(keyOf('acme', 'alice', 'req-1', '1')).not.toBe(keyOf('acme', 'dave', 'req-1', '1'));
  });

  it('scopes a key to one proposal when given its id, apart from the call-scoped key', () => {
    const call = { tenant: 'acme', subject: 'alice', requestId: 'r', callId: 'c' };
    const first = idempotencyKey({ ...call, proposalId: 'p-1' });
    expect(first).toBe(sha256('["acme","alice","r","c","p-1"]'));
    expect(first).not.toBe(idempotencyKey(call));
    expect(first).not.toBe(idempotencyKey({ ...call, proposalId: 'p-2' }));
  });

  it('keeps the parts apart, so shifting a boundary changes the key', () => {
    expect(keyOf('t', 's', 'a', 'bc')).not.toBe(keyOf('t', 's', 'ab', 'c'));
    expect(keyOf('a', 'bc', '', '')).not.toBe(keyOf('ab', 'c', '', ''));
    expect(keyOf('t', 'a","b', 'c', '')).not.toBe(keyOf('t', 'a', 'b","c', ''));
  });

  it('gives distinct keys to distinct quadruples', () => {
    // A tiny alphabet of JSON-significant characters makes near-identical quadruples common.
    const part = fc.string({ unit: fc.constantFrom('a', 'b', '"', ',', '\\', '['), maxLength: 4 });
    const quad = fc.tuple(part, part, part, part);
    fc.assert(
      fc.property(quad, quad, (x, y) => {
        fc.pre(x.some((v, i) => v !== y[i]));
        expect(keyOf(...x)).not.toBe(keyOf(...y));
      }),
      { numRuns: 2000 },
    );
  });

  it('gives distinct keys when only the split of the same characters differs', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 2 }), fc.nat(), fc.nat(), (text, i, j) => {
        const a = i % (text.length + 1);
        const b = j % (text.length + 1);
        fc.pre(a !== b);
        const key = (cut: number) => keyOf('t', 's', text.slice(0, cut), text.slice(cut));
        expect(key(a)).not.toBe(key(b));
      }),
    );
  });

  it('matches the canonicalize package on well-formed strings', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), fc.string(), fc.string(), (t, r, c) => {
        expect(keyOf(t, 'u', r, c)).toBe(sha256(canonicalize([t, 'u', r, c]) ?? ''));
      }),
    );
  });

  it('accepts a lone surrogate in a call id without throwing and without colliding', () => {
    const lone = keyOf('t', 's', 'r', '\ud800');
    expect(lone).toMatch(/^[0-9a-f]{64}$/);
    expect(lone).not.toBe(keyOf('t', 's', 'r', '\ufffd'));
    expect(lone).not.toBe(keyOf('t', 's', 'r', '\\ud800'));
    expect(lone).toBe(keyOf('t', 's', 'r', '\ud800'));
  });
});

describe('idempotencyRedisKey', () => {
  const key = keyOf('acme', 'alice', 'req-1', 'call-1');

  it('tags the key with a short hash of the tenant for Redis Cluster', () => {
    expect(idempotencyRedisKey('tg:', 'acme', key)).toBe(
      `tg:idem:{${sha256('acme').slice(0, 16)}}:${key}`,
    );
  });

  it('keeps braces in a tenant name out of the hash tag', () => {
    const redisKey = idempotencyRedisKey('tg:', 'evil}{tenant', key);
    expect(redisKey.match(/[{}]/g)).toEqual(['{', '}']);
    expect(redisKey).toMatch(/^tg:idem:\{[0-9a-f]{16}\}:[0-9a-f]{64}$/);
  });

  it('puts one tenant in one slot and different tenants in different tags', () => {
    const tag = (tenant: string, k: string) =>
      /\{(.*?)\}/.exec(idempotencyRedisKey('', tenant, k))?.[1];
    expect(tag('acme', key)).toBe(tag('acme', keyOf('acme', 'alice', 'other', 'call')));
    expect(tag('acme', key)).not.toBe(tag('globex', key));
  });

  it('refuses a prefix with braces, which would capture the hash tag', () => {
    expect(() => idempotencyRedisKey('tg{x}:', 'acme', key)).toThrow(RangeError);
    expect(() => idempotencyRedisKey('tg}', 'acme', key)).toThrow(/must not contain/);
  });
});

describe('tenantHashTag', () => {
  it('is the hash tag idempotencyRedisKey puts between braces', () => {
    expect(idempotencyRedisKey('tg:', 'acme', 'k')).toBe(`tg:idem:{${tenantHashTag('acme')}}:k`);
  });

  it('is 16 lowercase hex characters whatever the tenant name holds', () => {
    expect(tenantHashTag('evil}{tenant')).toMatch(/^[0-9a-f]{16}$/);
  });
});
