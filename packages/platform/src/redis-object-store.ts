/**
 * An {@link ObjectStore} on Redis, for deployments whose objects live in the gate's Redis (the
 * example's billing world, tests, small installations). Generic: it knows objects, tenants and
 * versions, nothing of any domain. Tool workers change objects with compare-and-set on the
 * version the command carries.
 */
import type { ObjectRef, ObjectStore, ResolvedObject } from '@toolgate/shared';
import type { CompareAndSetResult, Store } from './store.js';

/** A Redis-backed object store, plus the writes seeding and tool workers need. */
export interface RedisObjectStore extends ObjectStore {
  /** Writes each object that does not exist yet; returns how many were written. */
  seed(objects: readonly ResolvedObject[]): Promise<number>;
  /** Writes `object` as given (version included), replacing any stored one. */
  put(object: ResolvedObject): Promise<void>;
  /**
   * Replaces the attributes of `ref` under `tenant` if its version is still `expectedVersion`; the
   * stored version becomes `expectedVersion + 1`. Returns the new object, `'conflict'` when the
   * version moved on, or `'not_found'` when there is no such object under `tenant`.
   */
  compareAndSet(
    ref: ObjectRef,
    tenant: string,
    expectedVersion: number,
    attributes: Readonly<Record<string, unknown>>,
  ): Promise<CompareAndSetResult>;
}

/**
 * Objects of `namespace` (letters, digits, `_`, `-`, `.`) in `store`. `load` is scoped by tenant:
 * another tenant's object is reported exactly like a missing one.
 */
export function createRedisObjectStore(store: Store, namespace: string): RedisObjectStore {
  // Fails at once for a bad namespace rather than on the first lookup.
  store.keys.object(namespace, '', { type: '', id: '' });
  return {
    load: (tenant, ref) => store.loadObject(namespace, tenant, ref),
    async seed(objects) {
      const written = await Promise.all(objects.map((o) => store.seedObject(namespace, o)));
      return written.filter(Boolean).length;
    },
    put: (object) => store.putObject(namespace, object),
    compareAndSet: (ref, tenant, expectedVersion, attributes) =>
      store.compareAndSetObject(namespace, ref, tenant, expectedVersion, attributes),
  };
}
