/**
 * An in-memory object store for the example: tenant-scoped lookups over a copy of the seed data.
 * Used by `toolgate evaluate` and unit tests; the running system uses a shared store instead.
 */
import type { ObjectRef, ObjectStore, ResolvedObject } from '@toolgate/shared';
import { SEED_OBJECTS } from './data.js';

/** A store whose objects can be changed by tests (e.g. a draft edited after its card was built). */
export interface MemoryStore extends ObjectStore {
  /** Replaces an object (bumping its version), as a tool or an editor would. */
  update(ref: ObjectRef, attributes: Readonly<Record<string, unknown>>): ResolvedObject;
}

/** Creates a store seeded with `objects` (default: the example's seed data). */
export function createMemoryStore(objects: readonly ResolvedObject[] = SEED_OBJECTS): MemoryStore {
  const byKey = new Map(objects.map((o) => [keyOf(o), o]));
  return {
    load(tenant, ref) {
      const found = byKey.get(keyOf(ref));
      // Another tenant's object is reported exactly like a missing one.
      return Promise.resolve(found !== undefined && found.tenant === tenant ? found : undefined);
    },
    update(ref, attributes) {
      const current = byKey.get(keyOf(ref));
      if (current === undefined) throw new Error(`no object ${ref.type}/${ref.id}`);
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
