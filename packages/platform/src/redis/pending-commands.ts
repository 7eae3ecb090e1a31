/**
 * Pending commands: what execute published to a tool and waits for the result of, indexed by
 * deadline for the deadline sweeper. A command is stored with the claim of its idempotency key,
 * taken once by its result (or swept at its deadline), and its record settled by whichever of the
 * two ends the call.
 */
import type { IdempotencyRecord } from '@toolgate/shared';
import { claimArgs, mergedClaims, readClaim, type ExpiredClaim } from './expired-claims.js';
import {
  decodeRecord,
  recordTtl,
  settleArgs,
  settlementOf,
  type Settlement,
} from './idempotency-records.js';
import { loadScript } from './load-script.js';
import type { RedisConnection } from './redis-connection.js';
import { corrupt } from './store-faults.js';
import { checkCount, decode, hasStrings, isObject } from './stored-json.js';

/** How long a pending command's JSON lives at most, in seconds (7 days): a guard against leaks. */
export const PENDING_COMMAND_TTL_SECONDS = 7 * 24 * 60 * 60;

/**
 * Default time a taken pending command stays readable by its taker's token, in ms (1 h): long
 * enough for Kafka to redeliver the result after a crash, short enough not to hoard memory.
 */
export const DEFAULT_TAKE_LINGER_MS = 60 * 60 * 1000;

const SCRIPTS = {
  claimWithPending: loadScript('claim-with-pending'),
  claimRecord: loadScript('claim-record'),
  put: loadScript('put-pending-command'),
  take: loadScript('take-pending-command'),
  takeAndSettle: loadScript('take-and-settle'),
  settle: loadScript('settle-record'),
  claimExpired: loadScript('claim-expired-commands'),
  finishExpired: loadScript('finish-expired-command'),
};

/** A command published to a tool and waiting for its result (execute stage). */
export interface PendingCommand {
  readonly commandId: string;
  readonly idempotencyKey: string;
  readonly tenant: string;
  readonly subject: string;
  readonly tool: string;
  readonly proposalId: string;
  readonly runId: string;
  readonly requestId: string;
  readonly callId: string;
  /** The claim token of the idempotency record (execute uses the proposalId). */
  readonly token: string;
  /** `commandDigest` of the command, as stored in the record. */
  readonly digest: string;
  /** ISO-8601 instant after which the outcome is unknown. */
  readonly deadline: string;
  /** ISO-8601 instant the command was issued, so a re-issue after a crash rebuilds the same bytes. */
  readonly issuedAt?: string;
  /**
   * The message that claimed the key (`<topic>@<partition>:<offset>`): only that message, read
   * again, re-issues the command; another record with the same proposal's ids publishes nothing.
   */
  readonly claimedBy?: string;
}

/** What {@link PendingCommands.claimWithPending} claims and stores. */
export interface ClaimWithPendingRequest {
  readonly tenant: string;
  /** The idempotency key. */
  readonly key: string;
  /** The `claimed` record to store when the key is free. */
  readonly record: IdempotencyRecord;
  /** The record's TTL, in seconds (≥ 24 h). */
  readonly ttlSeconds: number;
  readonly pending: PendingCommand;
  /** The command's deadline, in ms since the epoch. */
  readonly deadlineMs: number;
}

/** What {@link PendingCommands.claimWithPending} did: won the key, or found it held by `record`. */
export type ClaimWithPending =
  { readonly claimed: true } | { readonly claimed: false; readonly record: IdempotencyRecord };

/** What {@link PendingCommands.takeAndSettle} takes and settles. */
export interface TakeAndSettleRequest {
  /** The pending command as it was stored. */
  readonly expected: PendingCommand;
  /** The taker's token, stable across redelivery (the result message's coordinates). */
  readonly takerToken: string;
  /** The record to settle `expected`'s record to. */
  readonly record: IdempotencyRecord;
  /** The record's TTL, in seconds (≥ 24 h). */
  readonly ttlSeconds: number;
  /** The settler's token (see {@link IdempotencyRecords.settleRecord}). */
  readonly settlerToken: string;
}

/** What {@link PendingCommands.takeAndSettle} did. */
export type TakeAndSettle =
  /** The pending command is gone, or another taker has it: nothing was done. */
  | { readonly outcome: 'unmatched' }
  /** Redis holds another pending command under the id: nothing was done; take and settle apart. */
  | { readonly outcome: 'changed' }
  /** This taker has the command, and the record was settled or not (see `settleRecord`). */
  | ({ readonly outcome: 'taken' } & Settlement);

/** Options of {@link createPendingCommands}. */
export interface PendingCommandsOptions {
  /** How long a taken pending command answers its taker again; ms. Default 1 h. */
  readonly takeLingerMs?: number;
}

/** The pending commands of every tenant, and their deadline index. */
export interface PendingCommands {
  /**
   * Claims the idempotency key (SET NX) and, only if the claim is won, stores the pending command
   * as {@link PendingCommands.putPendingCommand} does, in one round trip and atomically. A lost
   * claim answers the record that holds the key. On a Redis Cluster the record and the command
   * live in different slots: the claim comes first and the command is stored after it, so a crash
   * in between leaves a claim without its command, which the claimer's redelivered message
   * stores (execute's `restorePending`).
   */
  claimWithPending(request: ClaimWithPendingRequest): Promise<ClaimWithPending>;
  /** Stores `pending` and indexes it under `deadlineMs` (ms since the epoch), atomically. */
  putPendingCommand(pending: PendingCommand, deadlineMs: number): Promise<void>;
  /**
   * The pending command as stored (whether or not a result took it), or undefined; changes
   * nothing. For re-issuing the same command after a crash between storing it and committing.
   */
  peekPendingCommand(commandId: string): Promise<PendingCommand | undefined>;
  /**
   * Takes the pending command for a result, once: the first taker gets it (and its deadline is
   * dropped, unless the deadline sweeper claimed it: see `claimExpiredCommands`), the same
   * `takerToken` gets it again (a retry after a lost reply), anyone else gets undefined. Use a
   * token that is stable across redelivery: the result message's coordinates.
   */
  takePendingCommand(commandId: string, takerToken: string): Promise<PendingCommand | undefined>;
  /**
   * {@link PendingCommands.takePendingCommand} and then `settleRecord` of its record
   * (`expected.tenant`, `expected.idempotencyKey`), in one round trip and atomically, for a caller
   * that holds a copy of the pending command (`expected`, as it was stored) and made `record` from
   * it. Only when Redis holds exactly that copy: else nothing is done (`changed`), and the caller
   * takes the command and settles apart. A record the gate did not write rejects with a
   * `store_corrupt` fault before anything is done: the command keeps its deadline, so the deadline
   * sweeper still ends the call. On a Redis Cluster the record is read, then the command taken,
   * then the record settled, in three steps: a crash after the take leaves the record claimed, and
   * the redelivered result (the same taker token) takes and settles again.
   */
  takeAndSettle(request: TakeAndSettleRequest): Promise<TakeAndSettle>;
  /**
   * Up to `limit` commands past their deadline (or past an earlier claim's lease), each re-leased
   * until `nowMs + leaseMs`: finish them before the lease ends or they are claimed again, even
   * when a result took one meanwhile (the sweep may have settled it, and then owes its outcome).
   * On a Redis Cluster each shard of the index is claimed in turn until `limit`.
   */
  claimExpiredCommands(
    nowMs: number,
    leaseMs: number,
    limit: number,
  ): Promise<ExpiredClaim<PendingCommand>>;
  /**
   * Ends a claimed command. Its JSON is deleted, or kept `retainMs` so that a late result can
   * still be matched (take it with {@link PendingCommands.takePendingCommand}); one a result took
   * meanwhile is kept `retainMs` or the take linger, whichever is longer. True when it was still
   * indexed.
   */
  finishExpiredCommand(
    commandId: string,
    options?: { readonly retainMs?: number },
  ): Promise<boolean>;
}

/**
 * The pending commands on `conn`.
 *
 * @throws RangeError for a take linger under 1 ms.
 */
export function createPendingCommands(
  conn: RedisConnection,
  options: PendingCommandsOptions = {},
): PendingCommands {
  const { keys } = conn;
  const lingerMs = options.takeLingerMs ?? DEFAULT_TAKE_LINGER_MS;
  checkCount('take linger (ms)', lingerMs, 1);
  const read = (text: unknown, k: string) =>
    typeof text === 'string' ? decode(text, 'pending command', k, isPendingCommand) : undefined;
  return {
    async claimWithPending({ tenant, key, record, ttlSeconds, pending, deadlineMs }) {
      checkCount('deadline (ms)', deadlineMs, 0);
      const k = keys.idempotency(tenant, key);
      const { commandId } = pending;
      const claim = [JSON.stringify(record), recordTtl(ttlSeconds)];
      const stored = pendingArgs(pending, deadlineMs);
      const commandKeys = [keys.pendingCommand(commandId), keys.deadlinesOf(commandId)];
      if (!keys.cluster) {
        const reply = await conn.script(
          SCRIPTS.claimWithPending,
          [k, ...commandKeys],
          [...claim, ...stored],
        );
        return claimOf(reply, k);
      }
      const claimed = claimOf(await conn.script(SCRIPTS.claimRecord, [k], claim), k);
      if (claimed.claimed) await conn.script(SCRIPTS.put, commandKeys, stored);
      return claimed;
    },
    async putPendingCommand(pending, deadlineMs) {
      checkCount('deadline (ms)', deadlineMs, 0);
      const { commandId } = pending;
      const commandKeys = [keys.pendingCommand(commandId), keys.deadlinesOf(commandId)];
      await conn.script(SCRIPTS.put, commandKeys, pendingArgs(pending, deadlineMs));
    },
    async peekPendingCommand(commandId) {
      const k = keys.pendingCommand(commandId);
      return read(await conn.run('peek_pending_command', (r) => r.hget(k, 'json')), k);
    },
    async takePendingCommand(commandId, takerToken) {
      const k = keys.pendingCommand(commandId);
      const args = [commandId, takerToken, lingerMs];
      return read(await conn.script(SCRIPTS.take, [k, keys.deadlinesOf(commandId)], args), k);
    },
    async takeAndSettle({ expected, takerToken, record, ttlSeconds, settlerToken }) {
      const { commandId } = expected;
      const k = keys.idempotency(expected.tenant, expected.idempotencyKey);
      const settle = settleArgs(record, ttlSeconds, settlerToken);
      const take = [commandId, takerToken, lingerMs, JSON.stringify(expected)];
      const commandKeys = [keys.pendingCommand(commandId), keys.deadlinesOf(commandId)];
      if (!keys.cluster) {
        const reply = await conn.script(
          SCRIPTS.takeAndSettle,
          [...commandKeys, k],
          [...take, ...settle],
        );
        return takenOf(reply, k);
      }
      // The checks take-and-settle.lua makes in one step, made one slot at a time.
      const current = await conn.run('get_record', (r) => r.get(k));
      if (current !== null) decodeRecord(current, k);
      const json = await conn.script(SCRIPTS.take, commandKeys, take);
      if (typeof json !== 'string') return { outcome: 'unmatched' };
      if (json !== take[3]) return { outcome: 'changed' };
      return {
        outcome: 'taken',
        ...settlementOf(await conn.script(SCRIPTS.settle, [k], settle), k),
      };
    },
    async claimExpiredCommands(nowMs, leaseMs, limit) {
      claimArgs(nowMs, leaseMs, limit, '');
      const claims: ExpiredClaim<PendingCommand>[] = [];
      let left = limit;
      for (const { index, pendingPrefix } of keys.deadlineShards) {
        if (left === 0) break;
        const args = claimArgs(nowMs, leaseMs, left, pendingPrefix);
        const reply = await conn.script(SCRIPTS.claimExpired, [index], args);
        const claim = await readClaim(conn, index, reply, 'pending command', isPendingCommand);
        left -= claim.claimed.length + claim.unreadable.length;
        claims.push(claim);
      }
      return mergedClaims(claims);
    },
    async finishExpiredCommand(commandId, finish = {}) {
      const retainMs = finish.retainMs ?? 0;
      checkCount('retain (ms)', retainMs, 0);
      const k = keys.pendingCommand(commandId);
      const args = [commandId, retainMs, Math.max(retainMs, lingerMs)];
      const scriptKeys = [k, keys.deadlinesOf(commandId)];
      return (await conn.script(SCRIPTS.finishExpired, scriptKeys, args)) === 1;
    },
  };
}

/** The pending command's JSON, its TTL, its deadline and its id: the put script's arguments. */
function pendingArgs(pending: PendingCommand, deadlineMs: number) {
  return [JSON.stringify(pending), PENDING_COMMAND_TTL_SECONDS, deadlineMs, pending.commandId];
}

function claimOf(reply: unknown, key: string): ClaimWithPending {
  if (!Array.isArray(reply)) throw corrupt('claim reply', key);
  const [flag, holder] = reply as unknown[];
  if (flag === 1) return { claimed: true };
  if (typeof holder !== 'string') throw corrupt('claim reply', key);
  return { claimed: false, record: decodeRecord(holder, key) };
}

function takenOf(reply: unknown, key: string): TakeAndSettle {
  if (!Array.isArray(reply)) throw corrupt('take and settle reply', key);
  const [step, ...settlement] = reply as unknown[];
  if (step === 0) return { outcome: 'unmatched' };
  if (step === 2) return { outcome: 'changed' };
  if (step === 3) throw corrupt('idempotency record', key);
  if (step !== 1) throw corrupt('take and settle reply', key);
  return { outcome: 'taken', ...settlementOf(settlement, key) };
}

function isPendingCommand(v: unknown): v is PendingCommand {
  return isObject(v) && hasStrings(v, ['commandId', 'idempotencyKey', 'tenant', 'token']);
}
