/**
 * The Redis key layout of the gate, in one place. Every tenant-scoped key carries
 * the tenant's hash tag `{h}` ({@link tenantHashTag}), so one tenant's keys share a Redis Cluster
 * slot; the two sweeper indexes (`deadlines`, `conf-expiry`) are global.
 */
import { idempotencyRedisKey, tenantHashTag, type ObjectRef } from '@toolgate/shared';

/** Object-store namespaces: letters, digits, `_`, `-`, `.`; 1 to 64 characters. */
const NAMESPACE = /^[A-Za-z0-9_.-]{1,64}$/;

/** The keys of one deployment, all under one prefix. */
export interface StoreKeys {
  /** The prefix every key starts with (e.g. `toolgate:`). */
  readonly prefix: string;
  /** `<p>idem:{h}:<key>`: an idempotency record (JSON string). */
  idempotency(tenant: string, key: string): string;
  /** `<p>pending-cmd:<commandId>`: a command waiting for its result (hash: `json`, `takenBy`). */
  pendingCommand(commandId: string): string;
  /** `<p>deadlines`: ZSET of commandIds scored by deadline (ms since the epoch) or lease end. */
  readonly deadlines: string;
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
  /** `<p>conf-expiry`: ZSET of `<h>:<confirmationId>` scored by expiry (ms) or lease end. */
  readonly confirmationExpiry: string;
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
}

/**
 * The key layout under `prefix`.
 *
 * @throws RangeError when `prefix` contains `{` or `}` (it would capture the hash tag and put every
 *   tenant in one slot) — a configuration fault, raised at start-up.
 */
export function storeKeys(prefix: string): StoreKeys {
  // Fails at once for a prefix with braces rather than on the first record.
  idempotencyRedisKey(prefix, '', '');
  const tagged = (name: string, tenant: string) => `${prefix}${name}:{${tenantHashTag(tenant)}}`;
  return Object.freeze({
    prefix,
    idempotency: (tenant: string, key: string) => idempotencyRedisKey(prefix, tenant, key),
    pendingCommand: (commandId: string) => `${prefix}pending-cmd:${commandId}`,
    deadlines: `${prefix}deadlines`,
    confirmation: (tenant: string, id: string) => `${tagged('conf', tenant)}:${id}`,
    confirmationsByTenant: (tenant: string) => tagged('conf-by-tenant', tenant),
    decided: (tenant: string, id: string) => `${tagged('decided', tenant)}:${id}`,
    decidedByTenant: (tenant: string) => tagged('decided-by-tenant', tenant),
    amendNote: (tenant: string, id: string) => `${tagged('amend', tenant)}:${id}`,
    confirmationExpiry: `${prefix}conf-expiry`,
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
  });
}

function checkedNamespace(namespace: string): string {
  if (!NAMESPACE.test(namespace)) {
    throw new RangeError(`object namespace ${JSON.stringify(namespace)} must match ${NAMESPACE}`);
  }
  return namespace;
}
