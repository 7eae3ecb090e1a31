/**
 * An in-memory object store: tenant-scoped lookups over a copy of some objects. What
 * `toolgate evaluate` and unit tests resolve against; the running services use a shared store.
 */
import type { ObjectStore } from './tool-spec.js';
import type { ObjectRef, ResolvedObject } from './types.js';

/** A store whose objects can be changed (e.g. a draft edited after its card was built). */
export interface MemoryObjectStore extends ObjectStore {
  /**
   * Replaces the attributes of `tenant`'s object `ref` and bumps its version, as a tool or an
   * editor would.
   *
   * @throws RangeError when `tenant` has no such object.
   */
  update(
    tenant: string,
    ref: ObjectRef,
    attributes: Readonly<Record<string, unknown>>,
  ): ResolvedObject;
}

/**
 * Creates a store holding `objects`. Objects are kept per tenant, as the shared store keeps them:
 * two tenants may each have an object of the same type and id.
 */
export function createMemoryObjectStore(objects: readonly ResolvedObject[]): MemoryObjectStore {
  const byKey = new Map(objects.map((o) => [keyOf(o.tenant, o), o]));
  return {
    load(tenant, ref) {
      const found = byKey.get(keyOf(tenant, ref));
      // Another tenant's object is reported exactly like a missing one.
      return Promise.resolve(found !== undefined && found.tenant === tenant ? found : undefined);
    },
    update(tenant, ref, attributes) {
      const current = byKey.get(keyOf(tenant, ref));
      if (current === undefined) throw new RangeError(`no object ${ref.type}/${ref.id}`);
      const next = {
        ...current,
        version: current.version + 1,
        attributes: { ...current.attributes, ...attributes },
      };
      byKey.set(keyOf(tenant, ref), next);
      return next;
    },
  };
}

/** The three parts as a JSON array, so that no choice of strings can make two keys collide. */
function keyOf(tenant: string, ref: ObjectRef): string {
  return JSON.stringify([tenant, ref.type, ref.id]);
}
