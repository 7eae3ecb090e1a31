/**
 * Pending confirmations (DESIGN §4): parked by the confirm stage with an expiry, indexed by tenant
 * (for the approvals inbox) and by expiry (for the expiry sweeper), taken once by one approval or
 * swept once expired, never both; and, once decided, their history ({@link DecidedHistory}).
 */
import { tenantHashTag, type PendingConfirmation } from '@toolgate/shared';
import {
  createDecidedHistory,
  type DecidedHistory,
  type DecidedHistoryOptions,
} from './decided-history.js';
import {
  claimArgs,
  MAX_BATCH,
  mergedClaims,
  readClaim,
  type ExpiredClaim,
} from './expired-claims.js';
import { loadScript } from './load-script.js';
import type { RedisConnection } from './redis-connection.js';
import { pageWindow, unlessCorrupt } from './page-window.js';
import { corrupt } from './store-faults.js';
import { checkCount, decode, hasStrings, isObject } from './stored-json.js';

/** Default time a confirmation's JSON outlives its expiry, so the sweeper can still read it: 24 h. */
export const DEFAULT_CONFIRMATION_GRACE_MS = 24 * 60 * 60 * 1000;

const SCRIPTS = {
  park: loadScript('park-confirmation'),
  take: loadScript('take-confirmation'),
  claimExpired: loadScript('claim-expired-confirmations'),
  finishExpired: loadScript('finish-expired-confirmation'),
  page: loadScript('page-pending-confirmations'),
};

/** A place in a tenant's list of waiting confirmations: an entry's expiry (ms) and id. */
export interface PendingPosition {
  readonly expiresAtMs: number;
  readonly confirmationId: string;
}

/** One entry of a {@link PendingWindow}. */
export interface PendingEntry {
  readonly position: PendingPosition;
  /** Undefined when it no longer waits (decided meanwhile) or its JSON cannot be read. */
  readonly pending?: PendingConfirmation;
}

/** A window of a tenant's waiting confirmations, as {@link Confirmations.listPending} reads it. */
export interface PendingWindow {
  /** In list order: soonest expiry first, then by id. */
  readonly entries: readonly PendingEntry[];
  /** True when the list holds entries past the last one of this window. */
  readonly more: boolean;
}

/** Where a {@link Confirmations.listPending} window starts, and its size. */
export interface PendingWindowOptions {
  /** Start right after this position (which need not be listed any more); default the start. */
  readonly after?: PendingPosition;
  /** Skip the entries that expire at or before this time (ms): they wait for the sweeper. */
  readonly expiredUpToMs: number;
  /** Most entries in the window, 1 to {@link MAX_BATCH}. */
  readonly size: number;
}

/** Where a parked confirmation stands: see {@link Confirmations.parkConfirmation} and the takes. */
export const CONFIRMATION_STATES = ['waiting', 'taken', 'swept', 'finished'] as const;

/** One state of a parked confirmation. */
export type ConfirmationState = (typeof CONFIRMATION_STATES)[number];

/** A parked confirmation and its state, as {@link Confirmations.readConfirmation} finds it. */
export interface StoredConfirmation {
  readonly pending: PendingConfirmation;
  readonly state: ConfirmationState;
}

/** What {@link Confirmations.parkConfirmation} did: the confirmation to publish, or the one that stands. */
export type ParkedConfirmation =
  { readonly publish: PendingConfirmation } | { readonly standing: PendingConfirmation };

/** Options of {@link createConfirmations}. */
export interface ConfirmationsOptions extends DecidedHistoryOptions {
  /** How long a confirmation's JSON outlives its expiry; ms. Default 24 h. */
  readonly confirmationGraceMs?: number;
}

/** The pending confirmations of every tenant, their indexes and their history. */
export interface Confirmations extends DecidedHistory {
  /**
   * Parks a confirmation (kept for ttlMs + grace) and indexes it by tenant and by expiry
   * (`pending.expiresAt`), and answers what to publish: `{publish: pending}` when this call parked
   * it; `{publish: STORED}` when `parkerToken` parked it before and it still waits (the same
   * message delivered again after a crash: publish the same request again); `{standing: STORED}`
   * when it exists otherwise (parked by another message, or decided: publish nothing for a
   * duplicate, refuse another call under the same id), read in the same step as the park. Use a
   * token that is stable across redelivery and names no other message: the message's coordinates
   * and a digest of its bytes.
   */
  parkConfirmation(
    pending: PendingConfirmation,
    ttlMs: number,
    parkerToken: string,
  ): Promise<ParkedConfirmation>;
  /**
   * The confirmation under `tenant` in whatever state it is (waiting, taken, swept, finished), or
   * undefined (never parked there, expired past its grace, or another tenant's). Changes nothing.
   */
  readConfirmation(tenant: string, confirmationId: string): Promise<StoredConfirmation | undefined>;
  /**
   * Single use: the waiting confirmation for the one approval that takes it; the same
   * `takerToken` gets it again (a retry after a lost reply; use the approval message's
   * coordinates and a digest of its bytes and session); else undefined (decided, claimed by the
   * expiry sweeper, unknown, or another tenant's).
   */
  takeConfirmation(
    tenant: string,
    confirmationId: string,
    takerToken: string,
  ): Promise<PendingConfirmation | undefined>;
  /**
   * A window of the tenant's waiting confirmations, soonest expiry first (then by id), after a
   * position: page through them all by passing each window's last position on. Every entry is
   * listed with its position, so a caller that filters still moves on; one that no longer waits or
   * whose JSON cannot be read comes without `pending`.
   */
  listPending(tenant: string, options: PendingWindowOptions): Promise<PendingWindow>;
  /**
   * Up to `limit` confirmations past their expiry (or past an earlier claim's lease), each
   * re-leased until `nowMs + leaseMs`: finish them before the lease ends or they are claimed
   * again. A claimed confirmation can no longer be taken. On a Redis Cluster the tenants' indexes
   * are claimed in turn until `limit`.
   */
  claimExpiredConfirmations(
    nowMs: number,
    leaseMs: number,
    limit: number,
  ): Promise<ExpiredClaim<PendingConfirmation>>;
  /**
   * Ends a claimed confirmation: it becomes `finished` and stays until its TTL, so a redelivered
   * message cannot park it again. True when it was still indexed.
   */
  finishExpiredConfirmation(tenant: string, confirmationId: string): Promise<boolean>;
}

/** The pending confirmations on `conn`. */
export function createConfirmations(
  conn: RedisConnection,
  options: ConfirmationsOptions = {},
): Confirmations {
  const { keys } = conn;
  const graceMs = options.confirmationGraceMs ?? DEFAULT_CONFIRMATION_GRACE_MS;
  const keysOf = (tenant: string, id: string) => [
    keys.confirmation(tenant, id),
    keys.confirmationsByTenant(tenant),
    keys.confirmationExpiry(tenant),
  ];
  const read = (text: unknown, k: string) =>
    typeof text === 'string' ? decode(text, 'confirmation', k, isPendingConfirmation) : undefined;
  const readWithState = (k: string) =>
    conn.run('read_confirmation', (r) => r.hmget(k, 'json', 'state'));
  // One entry that cannot be read must not hide the rest from every approver of its tenant: a
  // listing skips it; the expiry sweeper reports it and drops it from the indexes.
  const listed = async (k: string) => {
    const [json, state] = await readWithState(k);
    return unlessCorrupt(() => (state === 'waiting' ? read(json, k) : undefined));
  };
  return {
    ...createDecidedHistory(conn, options),
    async parkConfirmation(pending, ttlMs, parkerToken) {
      checkCount('confirmation TTL (ms)', ttlMs, 1);
      const expiresAtMs = Date.parse(pending.expiresAt);
      checkCount('expiresAt (ms)', expiresAtMs, 0);
      const { tenant, confirmationId: id } = pending;
      const member = keys.confirmationMember(tenant, id);
      const args = [JSON.stringify(pending), ttlMs + graceMs, expiresAtMs, id, member, parkerToken];
      const k = keys.confirmation(tenant, id);
      // Listed before the park, so the sweeper cannot miss an index it does not know of.
      const listing = keys.expiryTenants(tenant);
      if (listing !== undefined) {
        const tag = tenantHashTag(tenant);
        await conn.run('list_expiry_tenant', (r) => r.sadd(listing, tag));
      }
      const reply = await conn.script(SCRIPTS.park, keysOf(tenant, id), args);
      const [verdict, json] = Array.isArray(reply) ? (reply as unknown[]) : [];
      const found = read(json, k);
      if (found === undefined) throw corrupt('confirmation', k);
      if (verdict === 'publish') return { publish: found };
      if (verdict === 'standing') return { standing: found };
      throw corrupt('park reply', k);
    },
    async readConfirmation(tenant, id) {
      const k = keys.confirmation(tenant, id);
      const [json, state] = await readWithState(k);
      const pending = read(json, k);
      if (pending === undefined) return undefined;
      if (!(CONFIRMATION_STATES as readonly unknown[]).includes(state)) {
        throw corrupt('confirmation state', k);
      }
      return { pending, state: state as ConfirmationState };
    },
    async takeConfirmation(tenant, id, takerToken) {
      const args = [id, keys.confirmationMember(tenant, id), takerToken];
      const reply = await conn.script(SCRIPTS.take, keysOf(tenant, id), args);
      return read(reply, keys.confirmation(tenant, id));
    },
    async listPending(tenant, { after, expiredUpToMs, size }) {
      checkCount('window size', size, 1, MAX_BATCH);
      checkCount('expiredUpToMs', expiredUpToMs, 0);
      if (after !== undefined) checkCount('after.expiresAtMs', after.expiresAtMs, 0);
      const index = keys.confirmationsByTenant(tenant);
      const args = [
        after === undefined ? '' : String(after.expiresAtMs),
        after?.confirmationId ?? '',
        String(expiredUpToMs),
        String(size),
      ];
      const reply = await conn.script(SCRIPTS.page, [index], args);
      const window = pageWindow(reply, index, 'pending');
      const positions: PendingPosition[] = window.positions.map(({ score, id }) => ({
        expiresAtMs: score,
        confirmationId: id,
      }));
      const found = await Promise.all(
        positions.map((p) => listed(keys.confirmation(tenant, p.confirmationId))),
      );
      const entries = positions.map((position, i) => {
        const pending = found[i];
        return pending === undefined ? { position } : { position, pending };
      });
      return { entries, more: window.more };
    },
    async claimExpiredConfirmations(nowMs, leaseMs, limit) {
      claimArgs(nowMs, leaseMs, limit, keys.prefix);
      const claims: ExpiredClaim<PendingConfirmation>[] = [];
      let left = limit;
      for (const index of await expiryIndexes(conn)) {
        if (left === 0) break;
        const args = claimArgs(nowMs, leaseMs, left, keys.prefix);
        const reply = await conn.script(SCRIPTS.claimExpired, [index], args);
        const claim = await readClaim(conn, index, reply, 'confirmation', isPendingConfirmation);
        left -= claim.claimed.length + claim.unreadable.length;
        claims.push(claim);
      }
      return mergedClaims(claims);
    },
    async finishExpiredConfirmation(tenant, id) {
      const args = [id, keys.confirmationMember(tenant, id)];
      return (await conn.script(SCRIPTS.finishExpired, keysOf(tenant, id), args)) === 1;
    },
  };
}

/**
 * The expiry indexes to sweep: the one index on a single server; on a cluster, the index of each
 * tenant listed in the shards of tenants with confirmations.
 */
async function expiryIndexes(conn: RedisConnection): Promise<readonly string[]> {
  const { keys } = conn;
  if (!keys.cluster) return [keys.confirmationExpiryOfTag('')];
  const shards = await Promise.all(
    keys.expiryTenantShards.map((shard) =>
      conn.run('list_expiry_tenants', (r) => r.smembers(shard)),
    ),
  );
  return shards.flat().map((tag) => keys.confirmationExpiryOfTag(tag));
}

function isPendingConfirmation(v: unknown): v is PendingConfirmation {
  return isObject(v) && hasStrings(v, ['confirmationId', 'tenant', 'proposalId', 'expiresAt']);
}
