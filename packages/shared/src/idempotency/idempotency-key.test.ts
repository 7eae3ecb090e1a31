import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { idempotencyKey, idempotencyRedisKey, tenantHashTag } from './idempotency-key.js';

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

describe('idempotencyKey', () => {
  it('is the SHA-256 of the canonical JSON of [tenant, requestId, callId]', () => {
    expect(idempotencyKey('acme', 'req-42', 'call_abc')).toBe(
      sha256('["acme","req-42","call_abc"]'),
    );
  });

  it('keeps the parts apart, so shifting a boundary changes the key', () => {
    expect(idempotencyKey('t', 'a', 'bc')).not.toBe(idempotencyKey('t', 'ab', 'c'));
    expect(idempotencyKey('a', 'bc', '')).not.toBe(idempotencyKey('ab', 'c', ''));
    expect(idempotencyKey('t', 'a","b', 'c')).not.toBe(idempotencyKey('t', 'a', 'b","c'));
  });

  it('gives distinct keys to distinct triples', () => {
    // A tiny alphabet of JSON-significant characters makes near-identical triples common.
    const part = fc.string({ unit: fc.constantFrom('a', 'b', '"', ',', '\\', '['), maxLength: 4 });
    const triple = fc.tuple(part, part, part);
    fc.assert(
      fc.property(triple, triple, (x, y) => {
        fc.pre(x[0] !== y[0] || x[1] !== y[1] || x[2] !== y[2]);
        expect(idempotencyKey(...x)).not.toBe(idempotencyKey(...y));
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
        const key = (cut: number) => idempotencyKey('t', text.slice(0, cut), text.slice(cut));
        expect(key(a)).not.toBe(key(b));
      }),
    );
  });

  it('matches the canonicalize package on well-formed strings', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), fc.string(), fc.string(), (t, r, c) => {
        expect(idempotencyKey(t, r, c)).toBe(sha256(canonicalize([t, r, c]) ?? ''));
      }),
    );
  });

  it('accepts a lone surrogate in a call id without throwing and without colliding', () => {
    const lone = idempotencyKey('t', 'r', '\ud800');
    expect(lone).toMatch(/^[0-9a-f]{64}$/);
    expect(lone).not.toBe(idempotencyKey('t', 'r', '\ufffd'));
    expect(lone).not.toBe(idempotencyKey('t', 'r', '\\ud800'));
    expect(lone).toBe(idempotencyKey('t', 'r', '\ud800'));
  });
});

describe('idempotencyRedisKey', () => {
  const key = idempotencyKey('acme', 'req-1', 'call-1');

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
    expect(tag('acme', key)).toBe(tag('acme', idempotencyKey('acme', 'other', 'call')));
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
