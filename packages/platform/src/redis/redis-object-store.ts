/**
 * An {@link ObjectStore} on Redis, for deployments whose objects live in the gate's Redis (the
 * example's billing world, tests, small installations). Generic: it knows objects, tenants and
 * versions, nothing of any domain. Tool workers change objects with compare-and-set on the
 * version the command carries.
 *
 * A write made for a command names its cause ({@link EffectCause}) and is appended, in the same
 * script, to the tenant's effect log: what the tools actually did, one entry per write that
 * happened. A write that failed, or that a redelivery found already made and did not repeat, adds
 * nothing, so two entries under one idempotency key are two effects. The log is a Redis stream
 * per tenant and namespace, trimmed to about {@link DEFAULT_EFFECT_LOG_LENGTH} entries and gone
 * {@link DEFAULT_EFFECT_LOG_TTL_SECONDS} after its last write; {@link RedisObjectStore.effects}
 * reads it.
 */
import type { ObjectRef, ObjectStore, ResolvedObject } from '@toolgate/shared';
import { loadScript } from './load-script.js';
import type { RedisConnection } from './redis-connection.js';
import { checkCount, decode, hasStrings, isObject } from './stored-json.js';

const SEED_OBJECT = loadScript('seed-object');
const COMPARE_AND_SET_OBJECT = loadScript('compare-and-set-object');

/** The result of a compare-and-set on an object. */
export type CompareAndSetResult = ResolvedObject | 'conflict' | 'not_found';

/** Entries a tenant's effect log keeps by default (Redis trims it approximately). */
export const DEFAULT_EFFECT_LOG_LENGTH = 100_000;

/** How long a tenant's effect log is kept after its last entry by default: 7 days, like the ledger. */
export const DEFAULT_EFFECT_LOG_TTL_SECONDS = 7 * 24 * 60 * 60;

/** Entries read from the effect log per request. */
const EFFECT_PAGE = 1_000;

/** The command a write is made for, recorded with it. */
export interface EffectCause {
  readonly idempotencyKey: string;
  readonly commandId: string;
  readonly proposalId: string;
  readonly tool: string;
  /** When the tool made the write, ISO 8601. */
  readonly at: string;
}

/** One write a tool made: its cause, the object, and the version it replaced and made. */
export interface EffectEntry extends EffectCause {
  readonly tenant: string;
  readonly type: string;
  readonly id: string;
  readonly versionBefore: number;
  readonly versionAfter: number;
}

/** Bounds of the effect log (see the module comment). */
export interface EffectLogOptions {
  /** Entries kept per tenant, approximately. Default {@link DEFAULT_EFFECT_LOG_LENGTH}. */
  readonly length?: number;
  /** Seconds kept after the last entry. Default {@link DEFAULT_EFFECT_LOG_TTL_SECONDS}. */
  readonly ttlSeconds?: number;
}

/** A Redis-backed object store, plus the writes seeding and tool workers need. */
export interface RedisObjectStore extends ObjectStore {
  /** Writes each object that does not exist yet; returns how many were written. */
  seed(objects: readonly ResolvedObject[]): Promise<number>;
  /** Writes `object` as given (version included), replacing any stored one. */
  put(object: ResolvedObject): Promise<void>;
  /**
   * Replaces the attributes of `ref` under `tenant` if its version is still `expectedVersion`; the
   * stored version becomes `expectedVersion + 1`. Returns the new object, `'conflict'` when the
   * version moved on, or `'not_found'` when there is no such object under `tenant`. With `cause`,
   * a write that happens is appended to the tenant's effect log in the same script.
   */
  compareAndSet(
    ref: ObjectRef,
    tenant: string,
    expectedVersion: number,
    attributes: Readonly<Record<string, unknown>>,
    cause?: EffectCause,
  ): Promise<CompareAndSetResult>;
  /** The effect log of `tenant`, oldest first (what its trimming and expiry have kept). */
  effects(tenant: string): Promise<EffectEntry[]>;
}

/**
 * Objects of `namespace` (letters, digits, `_`, `-`, `.`) on `conn`. `load` is scoped by tenant:
 * another tenant's object is reported exactly like a missing one.
 *
 * @throws RangeError for a namespace that could collide with another key.
 */
export function createRedisObjectStore(
  conn: RedisConnection,
  namespace: string,
  effectLog: EffectLogOptions = {},
): RedisObjectStore {
  const { keys } = conn;
  // Fails at once for a bad namespace or bounds rather than on the first lookup or write.
  keys.object(namespace, '', { type: '', id: '' });
  const logLength = effectLog.length ?? DEFAULT_EFFECT_LOG_LENGTH;
  const logTtl = effectLog.ttlSeconds ?? DEFAULT_EFFECT_LOG_TTL_SECONDS;
  checkCount('effect log length', logLength, 1);
  checkCount('effect log TTL', logTtl, 1);
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
    async compareAndSet(ref, tenant, expectedVersion, attributes, cause) {
      checkCount('expected version', expectedVersion, 0);
      const next: ResolvedObject = {
        type: ref.type,
        id: ref.id,
        tenant,
        version: expectedVersion + 1,
        attributes,
      };
      const k = [keys.object(namespace, tenant, ref), keys.effects(namespace, tenant)];
      const entry = cause === undefined ? '' : effectOf(cause, next, expectedVersion);
      const args = [expectedVersion, next.version, docOf(next), entry, logLength, logTtl];
      const reply = await conn.script(COMPARE_AND_SET_OBJECT, k, args);
      if (reply === 1) return next;
      return reply === 0 ? 'conflict' : 'not_found';
    },
    async effects(tenant) {
      const k = keys.effects(namespace, tenant);
      const entries: EffectEntry[] = [];
      let from = '-';
      for (;;) {
        const page = await conn.run('read_effects', (r) =>
          r.xrange(k, from, '+', 'COUNT', EFFECT_PAGE),
        );
        for (const [, fields] of page) {
          entries.push(decode(fields[1] ?? '', 'effect entry', k, isEffectEntry));
        }
        const last = page.at(-1);
        if (last === undefined || page.length < EFFECT_PAGE) return entries;
        from = `(${last[0]}`;
      }
    },
  };
}

/** The effect log's entry for writing `next` over `versionBefore` for `cause`. */
function effectOf(cause: EffectCause, next: ResolvedObject, versionBefore: number): string {
  const { idempotencyKey, commandId, proposalId, tool, at } = cause;
  const entry: EffectEntry = {
    idempotencyKey,
    commandId,
    proposalId,
    tool,
    at,
    tenant: next.tenant,
    type: next.type,
    id: next.id,
    versionBefore,
    versionAfter: next.version,
  };
  return JSON.stringify(entry);
}

/** The stored JSON of `object`, its version checked first. */
function docOf(object: ResolvedObject): string {
  checkCount('object version', object.version, 0);
  const { type, id, tenant, version, attributes } = object;
  return JSON.stringify({ type, id, tenant, version, attributes });
}

function isEffectEntry(v: unknown): v is EffectEntry {
  return (
    isObject(v) &&
    hasStrings(v, [
      'idempotencyKey',
      'commandId',
      'proposalId',
      'tool',
      'at',
      'tenant',
      'type',
      'id',
    ]) &&
    Number.isSafeInteger(v['versionBefore']) &&
    Number.isSafeInteger(v['versionAfter'])
  );
}

function isResolvedObject(v: unknown): v is ResolvedObject {
  return (
    isObject(v) &&
    hasStrings(v, ['type', 'id', 'tenant']) &&
    Number.isSafeInteger(v['version']) &&
    isObject(v['attributes'])
  );
}
