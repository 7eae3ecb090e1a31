/**
 * The Redis key layout of the gate, in one place. Every tenant-scoped key carries the tenant's hash
 * tag `{h}` ({@link tenantHashTag}), so one tenant's keys share a Redis Cluster slot and each
 * script's keys are in one slot.
 *
 * The two sweeper indexes span tenants. On one server each is one sorted set (`deadlines`,
 * `conf-expiry`). On a cluster ({@link StoreKeyOptions.cluster}) none may hold them all in one
 * slot: pending commands and their deadlines are split into {@link SWEEP_SHARDS} shards by command
 * id (`{pc:<k>}`: a command and its deadline entry share a slot), and each tenant keeps its own
 * expiry index in its slot, listed in a shard of tenants with confirmations (`{ct:<k>}`) that the
 * expiry sweeper walks.
 */
import { createHash } from 'node:crypto';
import { idempotencyRedisKey, tenantHashTag, type ObjectRef } from '@toolgate/shared';

/** Shards of each sweeper index on a Redis Cluster; every sweep walks them all. */
export const SWEEP_SHARDS = 16;

/** One shard of the deadline index: the sorted set, and the key prefix of its pending commands. */
export interface DeadlineShard {
  readonly index: string;
  readonly pendingPrefix: string;
}

/** Object-store namespaces: letters, digits, `_`, `-`, `.`; 1 to 64 characters. */
const NAMESPACE = /^[A-Za-z0-9_.-]{1,64}$/;

/** The keys of one deployment, all under one prefix. */
export interface StoreKeys {
  /** The prefix every key starts with (e.g. `toolgate:`). */
  readonly prefix: string;
  /** `<p>idem:{h}:<key>`: an idempotency record (JSON string). */
  idempotency(tenant: string, key: string): string;
  /** True for the cluster layout (see {@link StoreKeyOptions.cluster}). */
  readonly cluster: boolean;
  /**
   * `<p>pending-cmd:<commandId>` (on a cluster `<p>pending-cmd:{pc:<k>}:<commandId>`): a command
   * waiting for its result (hash: `json`, `takenBy`, `swept`).
   */
  pendingCommand(commandId: string): string;
  /**
   * The deadline index that holds `commandId`: `<p>deadlines` (on a cluster its shard
   * `<p>deadlines:{pc:<k>}`), a ZSET of commandIds scored by deadline (ms since the epoch) or lease
   * end.
   */
  deadlinesOf(commandId: string): string;
  /** Every shard of the deadline index, for the deadline sweeper (one on a single server). */
  readonly deadlineShards: readonly DeadlineShard[];
  /** `<p>conf:{h}:<confirmationId>`: a confirmation (hash: `json`, `state`, `takenBy`). */
  confirmation(tenant: string, confirmationId: string): string;
  /** `<p>conf-by-tenant:{h}`: ZSET of one tenant's waiting confirmationIds, scored by expiry. */
  confirmationsByTenant(tenant: string): string;
  /** `<p>decided:{h}:<confirmationId>`: a decided confirmation's history record (JSON string). */
  decided(tenant: string, confirmationId: string): string;
  /** `<p>decided-by-tenant:{h}`: ZSET of one tenant's decided confirmationIds, scored by decision (ms). */
  decidedByTenant(tenant: string): string;
  /** `<p>amend:{h}:<confirmationId>`: the amend sent for a confirmation (JSON string). */
  amendNote(tenant: string, confirmationId: string): string;
  /**
   * The expiry index that holds a tenant's confirmations: `<p>conf-expiry` (on a cluster the
   * tenant's own `<p>conf-expiry:{h}`), a ZSET of `<h>:<confirmationId>` scored by expiry (ms) or
   * lease end.
   */
  confirmationExpiry(tenant: string): string;
  /** The expiry index of the tenant whose hash tag is `tag`: the sweeper walks them by tag. */
  confirmationExpiryOfTag(tag: string): string;
  /**
   * On a cluster, `<p>conf-tenants:{ct:<k>}`: the SET of tenant tags (shard `k` of them) that have
   * parked a confirmation, whose expiry indexes the sweeper walks; undefined on a single server.
   */
  expiryTenants(tenant: string): string | undefined;
  /** Every shard of {@link StoreKeys.expiryTenants} (none on a single server). */
  readonly expiryTenantShards: readonly string[];
  /** The `conf-expiry` member of a confirmation: `<h>:<confirmationId>`. */
  confirmationMember(tenant: string, confirmationId: string): string;
  /**
   * `<p>run-over:{h}:<runId>`: the calls of a run past the ones its `run-calls` hash keeps (a
   * count), so a run that goes on calling past its limit does not grow the hash.
   */
  runOverflow(tenant: string, runId: string): string;
  /**
   * `<p>run-calls:{h}:<runId>`: the proposals of a run counted where they entered the gate (hash:
   * call token → the counts it was answered with).
   */
  runCalls(tenant: string, runId: string): string;
  /** `<p>rate-min:{h}:<minute>`: a tenant's calls in each second of one minute (hash: second → calls). */
  tenantMinute(tenant: string, minute: number): string;
  /**
   * `<p>rate-user:{h}:<minute>:<subject>`: one user's calls in each second of one minute (hash:
   * second → calls); the minute is digits, so the subject after it cannot shift it.
   */
  userMinute(tenant: string, subject: string, minute: number): string;
  /** `<p>repairs:{h}:<runId>`: the repairs charged to each call chain of a run (hash: chain → n). */
  repairChains(tenant: string, runId: string): string;
  /**
   * `<p>ledger:{h}:<idempotencyKey>`: a tool worker's ledger entry for one key (hash: `state`,
   * `token`, `digest`, `tool`, `claimedAt`, `attempts`, and once done `result`, `completedAt`).
   */
  ledger(tenant: string, idempotencyKey: string): string;
  /** `<p>obj:{h}:<namespace>:<tenant>:<type>:<id>` (parts URI-encoded): an object (hash: `v`, `doc`). */
  object(namespace: string, tenant: string, ref: ObjectRef): string;
  /**
   * `<p>obj:{h}:<namespace>:<tenant>:effects` (tenant URI-encoded): the stream of writes tools made
   * to a tenant's objects. Among the objects' keys and in their slot, so the script that writes an
   * object appends to it, and a tool worker's Redis user (confined to its ledger and objects) may;
   * one part shorter than an object's key, so no object's key is the same.
   */
  effects(namespace: string, tenant: string): string;
}

/** Options of {@link storeKeys}. */
export interface StoreKeyOptions {
  /**
   * The Redis Cluster layout: the sweeper indexes sharded so that no slot holds them all. Default
   * false: one index each, as on one server. A store keeps the layout it was written with.
   */
  readonly cluster?: boolean;
}

/**
 * The key layout under `prefix`.
 *
 * @throws RangeError when `prefix` contains `{` or `}` (it would capture the hash tag and put every
 *   tenant in one slot) — a configuration fault, raised at start-up.
 */
export function storeKeys(prefix: string, options: StoreKeyOptions = {}): StoreKeys {
  // Fails at once for a prefix with braces rather than on the first record.
  idempotencyRedisKey(prefix, '', '');
  const cluster = options.cluster ?? false;
  const tagged = (name: string, tenant: string) => `${prefix}${name}:{${tenantHashTag(tenant)}}`;
  const deadlineShards = cluster
    ? Array.from({ length: SWEEP_SHARDS }, (_, k) => deadlineShard(prefix, `:{pc:${k}}`))
    : [deadlineShard(prefix, '')];
  const shardOf = (commandId: string) =>
    deadlineShards[cluster ? shardIndex(commandId) : 0] as DeadlineShard;
  const expiryTenantShards = cluster
    ? Array.from({ length: SWEEP_SHARDS }, (_, k) => `${prefix}conf-tenants:{ct:${k}}`)
    : [];
  return Object.freeze({
    prefix,
    cluster,
    idempotency: (tenant: string, key: string) => idempotencyRedisKey(prefix, tenant, key),
    pendingCommand: (commandId: string) => `${shardOf(commandId).pendingPrefix}${commandId}`,
    deadlinesOf: (commandId: string) => shardOf(commandId).index,
    deadlineShards: Object.freeze(deadlineShards),
    confirmation: (tenant: string, id: string) => `${tagged('conf', tenant)}:${id}`,
    confirmationsByTenant: (tenant: string) => tagged('conf-by-tenant', tenant),
    decided: (tenant: string, id: string) => `${tagged('decided', tenant)}:${id}`,
    decidedByTenant: (tenant: string) => tagged('decided-by-tenant', tenant),
    amendNote: (tenant: string, id: string) => `${tagged('amend', tenant)}:${id}`,
    confirmationExpiry: (tenant: string) =>
      cluster ? tagged('conf-expiry', tenant) : `${prefix}conf-expiry`,
    confirmationExpiryOfTag: (tag: string) =>
      cluster ? `${prefix}conf-expiry:{${tag}}` : `${prefix}conf-expiry`,
    expiryTenants: (tenant: string) =>
      cluster ? expiryTenantShards[shardIndex(tenantHashTag(tenant))] : undefined,
    expiryTenantShards: Object.freeze(expiryTenantShards),
    confirmationMember: (tenant: string, id: string) => `${tenantHashTag(tenant)}:${id}`,
    runOverflow: (tenant: string, runId: string) => `${tagged('run-over', tenant)}:${runId}`,
    runCalls: (tenant: string, runId: string) => `${tagged('run-calls', tenant)}:${runId}`,
    tenantMinute: (tenant: string, minute: number) => `${tagged('rate-min', tenant)}:${minute}`,
    userMinute: (tenant: string, subject: string, minute: number) =>
      `${tagged('rate-user', tenant)}:${minute}:${subject}`,
    repairChains: (tenant: string, runId: string) => `${tagged('repairs', tenant)}:${runId}`,
    ledger: (tenant: string, key: string) => `${tagged('ledger', tenant)}:${key}`,
    object: (namespace: string, tenant: string, ref: ObjectRef) =>
      `${tagged('obj', tenant)}:${checkedNamespace(namespace)}:${[tenant, ref.type, ref.id].map(encodeURIComponent).join(':')}`,
    effects: (namespace: string, tenant: string) =>
      `${tagged('obj', tenant)}:${checkedNamespace(namespace)}:${encodeURIComponent(tenant)}:effects`,
  });
}

function deadlineShard(prefix: string, tag: string): DeadlineShard {
  return { index: `${prefix}deadlines${tag}`, pendingPrefix: `${prefix}pending-cmd${tag}:` };
}

/** The shard (0 to {@link SWEEP_SHARDS} - 1) of a command id or a tenant tag: a stable hash. */
function shardIndex(text: string): number {
  return createHash('sha256').update(text).digest().readUInt32BE(0) % SWEEP_SHARDS;
}

function checkedNamespace(namespace: string): string {
  if (!NAMESPACE.test(namespace)) {
    throw new RangeError(`object namespace ${JSON.stringify(namespace)} must match ${NAMESPACE}`);
  }
  return namespace;
}
