/**
 * An {@link ObjectStore} on Redis, for deployments whose objects live in the gate's Redis (the
 * example's billing world, tests, small installations). Generic: it knows objects, tenants and
 * versions, nothing of any domain. Tool workers change objects with compare-and-set on the
 * version the command carries.
 */
import type { ObjectRef, ObjectStore, ResolvedObject } from '@toolgate/shared';
import { loadScript } from './load-script.js';
import type { RedisConnection } from './redis-connection.js';
import { checkCount, decode, hasStrings, isObject } from './stored-json.js';

const SEED_OBJECT = loadScript('seed-object');
const COMPARE_AND_SET_OBJECT = loadScript('compare-and-set-object');

/** The result of a compare-and-set on an object. */
export type CompareAndSetResult = ResolvedObject | 'conflict' | 'not_found';

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
 * Objects of `namespace` (letters, digits, `_`, `-`, `.`) on `conn`. `load` is scoped by tenant:
 * another tenant's object is reported exactly like a missing one.
 *
 * @throws RangeError for a namespace that could collide with another key.
 */
export function createRedisObjectStore(conn: RedisConnection, namespace: string): RedisObjectStore {
  const { keys } = conn;
  // Fails at once for a bad namespace rather than on the first lookup.
  keys.object(namespace, '', { type: '', id: '' });
  const seedOne = async (object: ResolvedObject) => {
    const k = keys.object(namespace, object.tenant, object);
    return (await conn.script(SEED_OBJECT, [k], [object.version, docOf(object)])) === 1;
  };
  return {
    async load(tenant, ref) {
      const k = keys.object(namespace, tenant, ref);
      const text = await conn.run('load_object', (r) => r.hget(k, 'doc'));
      if (text === null) return undefined;
      const object = decode(text, 'object', k, isResolvedObject);
      // The key already holds the tenant; checking again costs nothing and fails closed.
      return object.tenant === tenant && object.type === ref.type && object.id === ref.id
        ? object
        : undefined;
    },
    async seed(objects) {
      const written = await Promise.all(objects.map(seedOne));
      return written.filter(Boolean).length;
    },
    async put(object) {
      const k = keys.object(namespace, object.tenant, object);
      const doc = docOf(object);
      await conn.run('put_object', (r) => r.hset(k, 'v', String(object.version), 'doc', doc));
    },
    async compareAndSet(ref, tenant, expectedVersion, attributes) {
      checkCount('expected version', expectedVersion, 0);
      const next: ResolvedObject = {
        type: ref.type,
        id: ref.id,
        tenant,
        version: expectedVersion + 1,
        attributes,
      };
      const k = keys.object(namespace, tenant, ref);
      const args = [expectedVersion, next.version, docOf(next)];
      const reply = await conn.script(COMPARE_AND_SET_OBJECT, [k], args);
      if (reply === 1) return next;
      return reply === 0 ? 'conflict' : 'not_found';
    },
  };
}

/** The stored JSON of `object`, its version checked first. */
function docOf(object: ResolvedObject): string {
  checkCount('object version', object.version, 0);
  const { type, id, tenant, version, attributes } = object;
  return JSON.stringify({ type, id, tenant, version, attributes });
}

function isResolvedObject(v: unknown): v is ResolvedObject {
  return (
    isObject(v) &&
    hasStrings(v, ['type', 'id', 'tenant']) &&
    Number.isSafeInteger(v['version']) &&
    isObject(v['attributes'])
  );
}
