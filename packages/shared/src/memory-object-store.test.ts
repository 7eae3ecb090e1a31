import { describe, expect, it } from 'vitest';
import { createMemoryObjectStore } from './memory-object-store.js';
import type { ResolvedObject } from './types.js';

const invoice = (tenant: string, amount: number): ResolvedObject => ({
  type: 'Invoice',
  id: 'inv_1',
  tenant,
  version: 1,
  attributes: { amount },
});
const ref = { type: 'Invoice', id: 'inv_1' };

describe('createMemoryObjectStore', () => {
  it("resolves each tenant's own object when two tenants use the same type and id", async () => {
    const store = createMemoryObjectStore([invoice('acme', 1), invoice('globex', 2)]);
    expect(await store.load('acme', ref)).toEqual(invoice('acme', 1));
    expect(await store.load('globex', ref)).toEqual(invoice('globex', 2));
  });

  it("reports another tenant's object exactly like a missing one", async () => {
    const store = createMemoryObjectStore([invoice('acme', 1)]);
    expect(await store.load('globex', ref)).toBeUndefined();
    expect(await store.load('globex', { type: 'Invoice', id: 'inv_2' })).toBeUndefined();
  });

  it("updates only the named tenant's object, bumping its version", async () => {
    const store = createMemoryObjectStore([invoice('acme', 1), invoice('globex', 2)]);
    expect(store.update('globex', ref, { amount: 3 })).toMatchObject({ version: 2 });
    expect(await store.load('globex', ref)).toMatchObject({
      version: 2,
      attributes: { amount: 3 },
    });
    expect(await store.load('acme', ref)).toEqual(invoice('acme', 1));
    expect(() => store.update('initech', ref, {})).toThrow(RangeError);
  });
});
