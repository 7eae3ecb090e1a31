import { idempotencyRedisKey, tenantHashTag } from '@toolgate/shared';
import { describe, expect, it } from 'vitest';
import { storeKeys, SWEEP_SHARDS } from './store-keys.js';

const keys = storeKeys('tg:');
const h = tenantHashTag('acme');

/** The hash tag Redis Cluster would take: the text between the first `{` and the next `}`. */
const slotTag = (key: string) => /\{(.*?)\}/.exec(key)?.[1];

describe('storeKeys', () => {
  it('lays the keys out as StoreKeys documents them', () => {
    expect(keys.idempotency('acme', 'k')).toBe(idempotencyRedisKey('tg:', 'acme', 'k'));
    expect(keys.pendingCommand('cmd-1')).toBe('tg:pending-cmd:cmd-1');
    expect(keys.deadlinesOf('cmd-1')).toBe('tg:deadlines');
    expect(keys.deadlineShards).toEqual([
      { index: 'tg:deadlines', pendingPrefix: 'tg:pending-cmd:' },
    ]);
    expect(keys.confirmation('acme', 'c-1')).toBe(`tg:conf:{${h}}:c-1`);
    expect(keys.confirmationsByTenant('acme')).toBe(`tg:conf-by-tenant:{${h}}`);
    expect(keys.decided('acme', 'c-1')).toBe(`tg:decided:{${h}}:c-1`);
    expect(keys.decidedByTenant('acme')).toBe(`tg:decided-by-tenant:{${h}}`);
    expect(keys.amendNote('acme', 'c-1')).toBe(`tg:amend:{${h}}:c-1`);
    expect(keys.confirmationExpiry('acme')).toBe('tg:conf-expiry');
    expect(keys.expiryTenants('acme')).toBeUndefined();
    expect(keys.expiryTenantShards).toEqual([]);
    expect(keys.runCalls('acme', 'run-7')).toBe(`tg:run-calls:{${h}}:run-7`);
    expect(keys.runOverflow('acme', 'run-7')).toBe(`tg:run-over:{${h}}:run-7`);
    expect(keys.tenantMinute('acme', 28_333_333)).toBe(`tg:rate-min:{${h}}:28333333`);
    expect(keys.userMinute('acme', 'alice', 28_333_333)).toBe(`tg:rate-user:{${h}}:28333333:alice`);
    expect(keys.repairChains('acme', 'run-7')).toBe(`tg:repairs:{${h}}:run-7`);
    expect(keys.ledger('acme', 'k')).toBe(`tg:ledger:{${h}}:k`);
  });

  it("puts every tenant-scoped key of a tenant in that tenant's slot", () => {
    const ref = { type: 'invoice', id: 'inv-1' };
    const scoped = [
      keys.idempotency('acme', 'k'),
      keys.confirmation('acme', 'c'),
      keys.confirmationsByTenant('acme'),
      keys.decided('acme', 'c'),
      keys.decidedByTenant('acme'),
      keys.amendNote('acme', 'c'),
      keys.runCalls('acme', 'r'),
      keys.runOverflow('acme', 'r'),
      keys.tenantMinute('acme', 1),
      keys.userMinute('acme', 'alice', 1),
      keys.repairChains('acme', 'r'),
      keys.ledger('acme', 'k'),
      keys.object('billing', 'acme', ref),
      keys.effects('billing', 'acme'),
    ];
    expect(new Set(scoped.map(slotTag))).toEqual(new Set([h]));
    expect(slotTag(keys.runCalls('globex', 'r'))).not.toBe(h);
  });

  it('shards the sweeper indexes on a cluster, a command beside its deadline entry', () => {
    const cluster = storeKeys('tg:', { cluster: true });
    const ids = Array.from({ length: 200 }, (_, i) => `cmd-${i}`);
    const shards = new Set(ids.map((id) => cluster.deadlinesOf(id)));
    expect(shards.size).toBe(SWEEP_SHARDS);
    expect(cluster.deadlineShards.map((s) => s.index).sort()).toEqual([...shards].sort());
    for (const id of ids) {
      expect(slotTag(cluster.pendingCommand(id))).toBe(slotTag(cluster.deadlinesOf(id)));
    }
    expect(cluster.confirmationExpiry('acme')).toBe(`tg:conf-expiry:{${h}}`);
    expect(cluster.confirmationExpiryOfTag(h)).toBe(`tg:conf-expiry:{${h}}`);
    const listings = new Set(
      Array.from({ length: 200 }, (_, i) => cluster.expiryTenants(`tenant-${i}`)),
    );
    expect([...listings].sort()).toEqual([...cluster.expiryTenantShards].sort());
    expect(listings.size).toBe(SWEEP_SHARDS);
  });

  it('names a confirmation in the expiry index by the tag and id the sweeper script splits', () => {
    const member = keys.confirmationMember('acme', 'c:with:colons');
    expect(member).toBe(`${h}:c:with:colons`);
    // The Lua sweeper reads characters 1–16 as the tag and 18 onwards as the id.
    expect(member.slice(0, 16)).toBe(h);
    expect(member.slice(17)).toBe('c:with:colons');
  });

  it('keeps object keys apart when a separator moves between tenant, type and id', () => {
    const a = keys.object('ns', 'acme', { type: 'a:b', id: 'c' });
    const b = keys.object('ns', 'acme', { type: 'a', id: 'b:c' });
    const c = keys.object('ns', 'acme:a', { type: 'b', id: 'c' });
    expect(new Set([a, b, c]).size).toBe(3);
  });

  it("keeps a tenant's effect log apart from every object key, and in the workers' key space", () => {
    const log = keys.effects('ns', 'acme:x');
    expect(log).toBe(`tg:obj:{${tenantHashTag('acme:x')}}:ns:acme%3Ax:effects`);
    expect(log.split(':')).toHaveLength(
      keys.object('ns', 'acme:x', { type: 't', id: 'i' }).split(':').length - 1,
    );
    expect(() => keys.effects('a:b', 'acme')).toThrow(RangeError);
  });

  it('refuses a prefix with braces, which would capture the hash tag', () => {
    expect(() => storeKeys('tg{x}:')).toThrow(RangeError);
  });

  it('refuses an object namespace with a separator', () => {
    expect(() => keys.object('a:b', 'acme', { type: 't', id: 'i' })).toThrow(RangeError);
    expect(() => keys.object('', 'acme', { type: 't', id: 'i' })).toThrow(RangeError);
  });
});
