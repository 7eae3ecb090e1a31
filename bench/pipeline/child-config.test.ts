import { describe, expect, it } from 'vitest';
import { relayIdempotencyKey, relayTenantOf } from './child-config.js';

describe('relayTenantOf', () => {
  it('reads back the tenant a relay idempotency key was made with', () => {
    expect(relayTenantOf(relayIdempotencyKey('globex', 'r.sat0.7'))).toBe('globex');
    expect(relayTenantOf(relayIdempotencyKey('acme', 'r.a/b.1'))).toBe('acme');
  });

  it('throws for a key that names no tenant', () => {
    expect(() => relayTenantOf('r.sat0.7')).toThrow(TypeError);
    expect(() => relayTenantOf('/r.sat0.7')).toThrow(TypeError);
  });
});
