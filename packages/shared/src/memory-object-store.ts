/**
 * An in-memory object store: tenant-scoped lookups over a copy of some objects. What
 * `toolgate evaluate` and unit tests resolve against; the running services use a shared store.
 */
import type { ObjectStore } from './tool-spec.js';
import type { ObjectRef, ResolvedObject } from './types.js';

/** A store whose objects can be changed (e.g. a draft edited after its card was built). */
export interface MemoryObjectStore extends ObjectStore {
  /** Replaces an object's attributes and bumps its version, as a tool or an editor would. */
  update(ref: ObjectRef, attributes: Readonly<Record<string, unknown>>): ResolvedObject;
}

/** Creates a store holding `objects`. */
export function createMemoryObjectStore(objects: readonly ResolvedObject[]): MemoryObjectStore {
  const byKey = new Map(objects.map((o) => [keyOf(o), o]));
  return {
    load(tenant, ref) {
      const found = byKey.get(keyOf(ref));
      // Another tenant's object is reported exactly like a missing one.
      return Promise.resolve(found !== undefined && found.tenant === tenant ? found : undefined);
    },
    update(ref, attributes) {
      const current = byKey.get(keyOf(ref));
      if (current === undefined) throw new RangeError(`no object ${ref.type}/${ref.id}`);
      const next = {
        ...current,
        version: current.version + 1,
        attributes: { ...current.attributes, ...attributes },
      };
      byKey.set(keyOf(ref), next);
      return next;
    },
  };
}

function keyOf(ref: ObjectRef): string {
  return `${ref.type}\u0000${ref.id}`;
}
