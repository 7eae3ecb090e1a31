/**
 * The Redis store adapter: the ONLY module that imports ioredis. Typed operations for the stages
 * (idempotency records, pending commands, pending confirmations, call counters, objects), each
 * failing fast with a {@link Fault} while Redis cannot be reached, never hanging and never
 * answering "no record" for "could not ask".
 */
import { Redis } from 'ioredis';
import {
  IDEMPOTENCY_STATES,
  type CallCounts,
  type IdempotencyRecord,
  type ObjectRef,
  type PendingConfirmation,
  type ResolvedObject,
  type ToolResult,
} from '@toolgate/shared';
import { Fault } from './fault.js';
import { storeKeys, type StoreKeys } from './store-keys.js';
import * as scripts from './store-scripts.js';
import type { StoreScript } from './store-scripts.js';

/** Fault codes the store throws. */
export const STORE_FAULTS = {
  /** Redis could not be reached or did not answer in time (retriable: pause and try again). */
  unavailable: 'redis_unavailable',
  /** Redis refused a command for a reason that a retry cannot fix (wrong type, script error). */
  error: 'redis_error',
  /** A stored value is not what the gate wrote (not retriable). */
  corrupt: 'store_corrupt',
} as const;

/** The least TTL of an idempotency record, in seconds: DESIGN §5 keeps records at least 24 h. */
export const MIN_RECORD_TTL_SECONDS = 24 * 60 * 60;

/** How long a calls-per-run counter lives after its last call, in seconds (24 h). */
export const RUN_COUNTER_TTL_SECONDS = 24 * 60 * 60;

/** How long a per-second rate counter lives, in seconds (its second plus one). */
export const RATE_COUNTER_TTL_SECONDS = 2;

/** How long a pending command's JSON lives at most, in seconds (7 days): a guard against leaks. */
export const PENDING_COMMAND_TTL_SECONDS = 7 * 24 * 60 * 60;

/**
 * Default time a taken pending command stays readable by its taker's token, in ms (1 h): long
 * enough for Kafka to redeliver the result after a crash, short enough not to hoard memory.
 */
export const DEFAULT_TAKE_LINGER_MS = 60 * 60 * 1000;

/** Default time a confirmation's JSON outlives its expiry, so the sweeper can still read it: 24 h. */
export const DEFAULT_CONFIRMATION_GRACE_MS = 24 * 60 * 60 * 1000;

/** Default bound on connecting and on each command, in milliseconds. */
export const DEFAULT_STORE_TIMEOUT_MS = 2000;

/** Most entries a sweeper claim or a listing returns at once. */
export const MAX_BATCH = 1000;

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

/** Where a parked confirmation stands: see {@link Store.parkConfirmation} and the takes. */
export const CONFIRMATION_STATES = ['waiting', 'taken', 'swept', 'finished'] as const;

/** One state of a parked confirmation. */
export type ConfirmationState = (typeof CONFIRMATION_STATES)[number];

/** A parked confirmation and its state, as {@link Store.readConfirmation} finds it. */
export interface StoredConfirmation {
  readonly pending: PendingConfirmation;
  readonly state: ConfirmationState;
}

/** What {@link Store.parkConfirmation} did: the confirmation to publish, or the one that stands. */
export type ParkedConfirmation =
  { readonly publish: PendingConfirmation } | { readonly standing: PendingConfirmation };

/** What {@link Store.settleRecord} found and did. */
export interface Settlement {
  /** True when this call replaced the claimed record: the caller publishes the terminal outcome. */
  readonly settled: boolean;
  /** The record as it was before (undefined when there was none). */
  readonly previous: IdempotencyRecord | undefined;
}

/** What {@link Store.takeAndSettle} did. */
export type TakeAndSettle =
  /** The pending command is gone, or another taker has it: nothing was done. */
  | { readonly outcome: 'unmatched' }
  /** Redis holds another pending command under the id: nothing was done; take and settle apart. */
  | { readonly outcome: 'changed' }
  /** This taker has the command, and the record was settled or not ({@link Store.settleRecord}). */
  | ({ readonly outcome: 'taken' } & Settlement);

/** What {@link Store.claimWithPending} did: won the key, or found it held by `record`. */
export type ClaimWithPending =
  { readonly claimed: true } | { readonly claimed: false; readonly record: IdempotencyRecord };

/** What a tool worker claims an idempotency key with, in its ledger. */
export interface LedgerClaimant {
  /** The claim token: the command id, the same on every delivery of one command. */
  readonly token: string;
  /** `commandDigest` of the command: the same key with another digest is a conflict. */
  readonly digest: string;
  readonly tool: string;
  /** ISO-8601 instant of the claim. */
  readonly claimedAt: string;
}

/** A tool worker's ledger entry for one idempotency key. */
export interface LedgerEntry {
  /** `running` from the claim until a result is recorded, then `done`. */
  readonly state: 'running' | 'done';
  /** The command id that claimed the key (and, when done, recorded the result). */
  readonly token: string;
  readonly digest: string;
  readonly tool: string;
  readonly claimedAt: string;
  /** Deliveries that claimed it: more than 1 means an earlier one did not finish. */
  readonly attempts: number;
  /** The recorded result, when done. */
  readonly result?: ToolResult;
  readonly completedAt?: string;
}

/** What {@link Store.ledgerClaim} found. */
export type LedgerClaim =
  /** New: this delivery runs the command. */
  | { readonly outcome: 'claimed' }
  /** The same command held the claim without a result: a redelivery after a crash proceeds. */
  | { readonly outcome: 'resumed'; readonly attempts: number }
  /** A result is recorded: publish it again, run nothing. */
  | { readonly outcome: 'done'; readonly result: ToolResult; readonly token: string }
  /** The key holds a command with another digest. */
  | { readonly outcome: 'conflict'; readonly token: string }
  /** Another command (same digest, other id) holds the claim and has no result yet. */
  | { readonly outcome: 'busy'; readonly token: string };

/** What {@link Store.ledgerPut} did. */
export type LedgerPut =
  /** `recorded`: this call wrote `result`; `kept`: one was there already, and it is `result`. */
  | { readonly outcome: 'recorded' | 'kept'; readonly result: ToolResult }
  /** Another command holds the claim: nothing written. */
  | { readonly outcome: 'foreign'; readonly token: string };

/** The result of a compare-and-set on an object. */
export type CompareAndSetResult = ResolvedObject | 'conflict' | 'not_found';

/**
 * What a sweep claimed: the entries it can end, and those whose JSON the gate cannot read (written
 * by another version, or damaged). These leave the index at once, so that they do not come back
 * after every lease and fail each sweep they are in; their JSON stays until its TTL, for a person.
 */
export interface ExpiredClaim<T> {
  readonly claimed: readonly T[];
  /** Each unreadable entry's index member (a command id; a confirmation's tag and id) and why. */
  readonly unreadable: readonly { readonly member: string; readonly problem: string }[];
}

/** The logger calls the store makes (a pino logger fits). */
export interface StoreLogger {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
}

/** Options of {@link createStore}. */
export interface StoreOptions {
  /** `redis://host:port/db` (TOOLGATE_REDIS_URL). */
  readonly url: string;
  /** Prefix of every key (TOOLGATE_REDIS_PREFIX); no braces. */
  readonly prefix: string;
  /** Connection state changes are logged here (an outage once, its end once). */
  readonly logger?: StoreLogger;
  /** CLIENT SETNAME of the connection, for `CLIENT LIST`. */
  readonly connectionName?: string;
  /** Bound on connecting, on waiting for the connection, and on each command; ms. Default 2000. */
  readonly timeoutMs?: number;
  /** How long a confirmation's JSON outlives its expiry; ms. Default 24 h. */
  readonly confirmationGraceMs?: number;
  /** How long a taken pending command answers its taker again; ms. Default 1 h. */
  readonly takeLingerMs?: number;
  /**
   * Told of every operation once it settles: its name, how long the caller waited (a wait for the
   * connection included) and whether it succeeded. What it throws is ignored.
   */
  readonly observe?: (op: string, seconds: number, ok: boolean) => void;
}

/**
 * The gate's Redis operations. Every method rejects with a {@link Fault} when Redis fails. All go
 * over one connection, and an operation's command is queued before the call returns (once
 * connected; while connecting, the waiting ones go out in call order), so Redis runs operations
 * in the order they were called, without waiting for each other's replies.
 */
export interface Store {
  /** The key layout in use. */
  readonly keys: StoreKeys;
  /** Resolves when Redis answers PING. */
  ping(): Promise<void>;
  /** Closes the connection; idempotent. Later operations fail with a retriable fault. */
  close(): Promise<void>;

  /** The idempotency record under `key` for `tenant`, or undefined. */
  getRecord(tenant: string, key: string): Promise<IdempotencyRecord | undefined>;
  /** SET NX EX: true when this call created the record, false when one existed. */
  claim(
    tenant: string,
    key: string,
    record: IdempotencyRecord,
    ttlSeconds: number,
  ): Promise<boolean>;
  /**
   * Overwrites the record (SET EX), e.g. a late result recorded after the deadline sweeper. With
   * `settlerToken`, the record keeps that settler's mark, so that {@link Store.settleRecord} with
   * the same token still answers settled (the sweeper that settled it, asking again after a fault).
   */
  putRecord(
    tenant: string,
    key: string,
    record: IdempotencyRecord,
    ttlSeconds: number,
    settlerToken?: string,
  ): Promise<void>;
  /**
   * Replaces the record only while it is `claimed` under `record.token` (Lua), so that of a result
   * and the deadline sweeper exactly one settles a command and publishes its terminal outcome.
   * `settlerToken` names the settler stably across retries (the result message's coordinates;
   * `sweep:<commandId>` for the sweeper): asking again with it after success answers settled
   * again, so a lost reply or a redelivery still publishes the terminal outcome once committed.
   */
  settleRecord(
    tenant: string,
    key: string,
    record: IdempotencyRecord,
    ttlSeconds: number,
    settlerToken: string,
  ): Promise<Settlement>;

  /**
   * {@link Store.claim} and, only if the claim is won, {@link Store.putPendingCommand}, in one
   * round trip and atomically. A lost claim answers the record that holds the key.
   */
  claimWithPending(
    tenant: string,
    key: string,
    record: IdempotencyRecord,
    ttlSeconds: number,
    pending: PendingCommand,
    deadlineMs: number,
  ): Promise<ClaimWithPending>;
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
   * {@link Store.takePendingCommand} and then {@link Store.settleRecord} of its record
   * (`expected.tenant`, `expected.idempotencyKey`), in one round trip and atomically, for a caller
   * that holds a copy of the pending command (`expected`, as it was stored) and made `record` from
   * it. Only when Redis holds exactly that copy: else nothing is done (`changed`), and the caller
   * takes the command and settles apart. A record the gate did not write rejects with a
   * `store_corrupt` fault before anything is done: the command keeps its deadline, so the deadline
   * sweeper still ends the call.
   */
  takeAndSettle(
    expected: PendingCommand,
    takerToken: string,
    record: IdempotencyRecord,
    ttlSeconds: number,
    settlerToken: string,
  ): Promise<TakeAndSettle>;
  /**
   * Up to `limit` commands past their deadline (or past an earlier claim's lease), each re-leased
   * until `nowMs + leaseMs`: finish them before the lease ends or they are claimed again, even
   * when a result took one meanwhile (the sweep may have settled it, and then owes its outcome).
   */
  claimExpiredCommands(
    nowMs: number,
    leaseMs: number,
    limit: number,
  ): Promise<ExpiredClaim<PendingCommand>>;
  /**
   * Ends a claimed command. Its JSON is deleted, or kept `retainMs` so that a late result can
   * still be matched (take it with {@link Store.takePendingCommand}); one a result took meanwhile
   * is kept `retainMs` or the take linger, whichever is longer. True when it was still indexed.
   */
  finishExpiredCommand(
    commandId: string,
    options?: { readonly retainMs?: number },
  ): Promise<boolean>;

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
  /** The confirmation while it waits for a person, else undefined; changes nothing. */
  peekConfirmation(
    tenant: string,
    confirmationId: string,
  ): Promise<PendingConfirmation | undefined>;
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
   * Up to `limit` of the tenant's waiting confirmations, soonest expiry first; one whose JSON
   * cannot be read is left out.
   */
  listPending(tenant: string, limit: number): Promise<PendingConfirmation[]>;
  /** Like {@link Store.claimExpiredCommands}; a claimed confirmation can no longer be taken. */
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

  /**
   * Counts one call, in one round trip: in its run (distinct `callToken`s, kept 24 h after the
   * last) and in the tenant's current second (2 s). Counting by token means a redelivered message
   * (same token) is counted in neither again; a run over its limit is a final denial. A
   * redelivery is told the current second's count as it stands, and at least 1 (itself).
   * The run keeps at most `keep` tokens (≥ 1; the run's limit and one more tell every call the
   * limit decides on apart): past them each new call is only counted, so a run that goes on
   * calling past its limit costs Redis a counter, not a token per call, and a redelivered call
   * past them is counted again, in the run and in the rate.
   */
  countCall(
    tenant: string,
    runId: string,
    callToken: string,
    nowMs: number,
    keep: number,
  ): Promise<CallCounts>;

  /**
   * A tool worker's claim on `key` before any side effect (Lua; TTL ≥ 24 h). Safe to repeat: the
   * same claimant asking again is told `resumed`, never `busy`.
   */
  ledgerClaim(
    tenant: string,
    key: string,
    claimant: LedgerClaimant,
    ttlSeconds: number,
  ): Promise<LedgerClaim>;
  /**
   * Records the result of the claimant's run (Lua; the first result recorded stays, and the TTL
   * is renewed). Safe to repeat: a second call answers `kept` with the first result.
   */
  ledgerPut(
    tenant: string,
    key: string,
    claimant: LedgerClaimant,
    result: ToolResult,
    ttlSeconds: number,
  ): Promise<LedgerPut>;
  /** The ledger entry under `key` for `tenant`, or undefined. */
  ledgerGet(tenant: string, key: string): Promise<LedgerEntry | undefined>;

  /** The object under `tenant`, or undefined (including when it is another tenant's). */
  loadObject(
    namespace: string,
    tenant: string,
    ref: ObjectRef,
  ): Promise<ResolvedObject | undefined>;
  /** Writes `object` only if absent; true when written. */
  seedObject(namespace: string, object: ResolvedObject): Promise<boolean>;
  /** Writes `object` as given, version included. */
  putObject(namespace: string, object: ResolvedObject): Promise<void>;
  /** Replaces the attributes and bumps the version by one, if the version is still `expectedVersion`. */
  compareAndSetObject(
    namespace: string,
    ref: ObjectRef,
    tenant: string,
    expectedVersion: number,
    attributes: Readonly<Record<string, unknown>>,
  ): Promise<CompareAndSetResult>;
}

/**
 * Connects to Redis (the connection starts at once) and returns the store. Commands issued while
 * the connection is (re)opening wait for it up to `timeoutMs`; while Redis is down they fail
 * within that bound with a retriable `redis_unavailable` fault, and work again once it is back
 * (reconnects back off from 200 ms, doubling, capped at 2 s).
 *
 * @throws RangeError for a prefix with braces (see {@link storeKeys}).
 */
export function createStore(options: StoreOptions): Store {
  const keys = storeKeys(options.prefix);
  const conn = connect(options);
  const graceMs = options.confirmationGraceMs ?? DEFAULT_CONFIRMATION_GRACE_MS;
  return {
    keys,
    ping: () => conn.run('ping', async (r) => void (await r.ping())),
    close: () => conn.close(),
    ...recordOperations(conn, keys),
    ...commandOperations(conn, keys, options.takeLingerMs ?? DEFAULT_TAKE_LINGER_MS),
    ...confirmationOperations(conn, keys, graceMs),
    ...counterOperations(conn, keys),
    ...ledgerOperations(conn, keys),
    ...objectOperations(conn, keys),
  };
}

/** A connection that turns every failure into a Fault. */
interface Connection {
  run<T>(op: string, fn: (redis: Redis) => Promise<T>): Promise<T>;
  script(
    s: StoreScript,
    keys: readonly string[],
    args: readonly (string | number)[],
  ): Promise<unknown>;
  close(): Promise<void>;
}

function connect(options: StoreOptions): Connection {
  const timeoutMs = options.timeoutMs ?? DEFAULT_STORE_TIMEOUT_MS;
  const redis = new Redis(options.url, {
    enableOfflineQueue: false,
    // Commands issued in the same tick (the facts of one message, the messages of a chunk handled
    // side by side) go out in one write and come back in one read.
    enableAutoPipelining: true,
    maxRetriesPerRequest: 1,
    connectTimeout: timeoutMs,
    commandTimeout: timeoutMs,
    retryStrategy: (times) => Math.min(100 * 2 ** Math.min(times, 5), 2000),
    // After a failover the old primary answers READONLY: reconnect and resend.
    reconnectOnError: (error) => error.message.startsWith('READONLY'),
    ...(options.connectionName === undefined ? {} : { connectionName: options.connectionName }),
  });
  const waiters = new Set<(ok: boolean) => void>();
  watchHealth(redis, options.logger, waiters);
  let closing: Promise<void> | undefined;

  const attempt = async <T>(op: string, fn: (r: Redis) => Promise<T>): Promise<T> => {
    if (closing !== undefined) throw unavailable(op, 'the store is closed');
    // Connected, the command is queued within this call, so operations go out in call order.
    if (redis.status !== 'ready') await whenReady(redis, waiters, timeoutMs, op);
    try {
      return await fn(redis);
    } catch (error) {
      throw faultOf(error, op);
    }
  };
  const { observe } = options;
  const run: Connection['run'] =
    observe === undefined
      ? attempt
      : async (op, fn) => {
          const started = performance.now();
          let ok = false;
          try {
            // Called within this call: the command is still queued in call order.
            const value = await attempt(op, fn);
            ok = true;
            return value;
          } finally {
            try {
              observe(op, (performance.now() - started) / 1000, ok);
            } catch {
              // A metric must not change an answer from Redis, nor turn a fault into another.
            }
          }
        };
  return {
    run,
    script: (s, keys, args) => run(s.name, (r) => evalScript(r, s, keys, args)),
    close: () => (closing ??= closeRedis(redis, waiters)),
  };
}

function watchHealth(
  redis: Redis,
  logger: StoreLogger | undefined,
  waiters: Set<(ok: boolean) => void>,
): void {
  let healthy = true;
  const wakeAll = (ok: boolean) => {
    for (const wake of waiters) wake(ok);
  };
  redis.on('ready', () => {
    if (!healthy) logger?.info({ event: 'redis_ready' }, 'redis connection restored');
    healthy = true;
    wakeAll(true);
  });
  // Without a listener ioredis would crash the process on a connection error.
  redis.on('error', (error: Error) => {
    if (healthy) logger?.warn({ event: 'redis_error', err: error }, 'redis connection failed');
    healthy = false;
  });
  // A failed attempt answers the commands waiting for it at once: Redis is down, say so.
  redis.on('close', () => wakeAll(false));
}

/** States in which a connection attempt is under way and worth waiting for. */
const OPENING = new Set(['wait', 'connecting', 'connect']);

/** Waits for the connection to be ready, at most `timeoutMs`. */
async function whenReady(
  redis: Redis,
  waiters: Set<(ok: boolean) => void>,
  timeoutMs: number,
  op: string,
): Promise<void> {
  if (redis.status === 'ready') return;
  if (!OPENING.has(redis.status)) throw unavailable(op, `not connected (${redis.status})`);
  const ok = await new Promise<boolean>((resolve) => {
    const wake = (value: boolean) => {
      clearTimeout(timer);
      waiters.delete(wake);
      resolve(value);
    };
    const timer = setTimeout(() => wake(false), timeoutMs);
    waiters.add(wake);
  });
  if (!ok) throw unavailable(op, `not connected (${redis.status}) after ${timeoutMs} ms`);
}

async function closeRedis(redis: Redis, waiters: Set<(ok: boolean) => void>): Promise<void> {
  for (const wake of waiters) wake(false);
  if (redis.status !== 'ready') {
    redis.disconnect();
    return;
  }
  try {
    await redis.quit();
  } catch {
    redis.disconnect();
  }
}

/** EVALSHA, loading the script with EVAL when Redis does not know it yet. */
async function evalScript(
  redis: Redis,
  s: StoreScript,
  keys: readonly string[],
  args: readonly (string | number)[],
): Promise<unknown> {
  try {
    return await redis.evalsha(s.sha, keys.length, ...keys, ...args);
  } catch (error) {
    if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
    return redis.eval(s.lua, keys.length, ...keys, ...args);
  }
}

function unavailable(op: string, why: string, cause?: unknown): Fault {
  return new Fault(STORE_FAULTS.unavailable, `redis ${op}: ${why}`, { retriable: true, cause });
}

/**
 * A reply error that a retry cannot fix is `redis_error` (not retriable): a wrong key type, an
 * unknown command (a Redis older than 6.2) or an error inside a script is a bug, foreign data or
 * a deployment fault, and pausing the stage forever would not help.
 * Everything else (connection loss, timeouts, LOADING, BUSY, READONLY, OOM, auth, max clients)
 * may pass, so it is `redis_unavailable` and the stage waits.
 */
function faultOf(error: unknown, op: string): Fault {
  if (error instanceof Fault) return error;
  const message = error instanceof Error ? error.message : String(error);
  const permanent =
    error instanceof Error &&
    error.name === 'ReplyError' &&
    /^(WRONGTYPE|ERR (unknown command|wrong number of arguments|syntax error)|ERR .*script)/i.test(
      message,
    );
  if (!permanent) return unavailable(op, message, error);
  return new Fault(STORE_FAULTS.error, `redis ${op}: ${message}`, {
    retriable: false,
    cause: error,
  });
}

function corrupt(what: string, key: string, cause?: unknown): Fault {
  return new Fault(STORE_FAULTS.corrupt, `${what} under ${key} is not what the gate wrote`, {
    retriable: false,
    cause,
  });
}

/** Parses a stored JSON value and checks its shape. */
function decode<T>(text: string, what: string, key: string, isT: (v: unknown) => v is T): T {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (cause) {
    throw corrupt(what, key, cause);
  }
  if (!isT(value)) throw corrupt(what, key);
  return value;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const hasStrings = (v: Record<string, unknown>, names: readonly string[]) =>
  names.every((name) => typeof v[name] === 'string');

/** Decodes a stored record, without the store's own `settledBy` mark. */
function decodeRecord(text: string, key: string): IdempotencyRecord {
  const { settledBy: _mark, ...record } = decode(text, 'idempotency record', key, isStoredRecord);
  return record;
}

function isStoredRecord(v: unknown): v is IdempotencyRecord & { settledBy?: unknown } {
  return (
    isObject(v) &&
    hasStrings(v, ['digest', 'token']) &&
    (IDEMPOTENCY_STATES as readonly unknown[]).includes(v['state'])
  );
}

function isPendingCommand(v: unknown): v is PendingCommand {
  return isObject(v) && hasStrings(v, ['commandId', 'idempotencyKey', 'tenant', 'token']);
}

function isPendingConfirmation(v: unknown): v is PendingConfirmation {
  return isObject(v) && hasStrings(v, ['confirmationId', 'tenant', 'proposalId', 'expiresAt']);
}

function isResolvedObject(v: unknown): v is ResolvedObject {
  return (
    isObject(v) &&
    hasStrings(v, ['type', 'id', 'tenant']) &&
    Number.isSafeInteger(v['version']) &&
    isObject(v['attributes'])
  );
}

function checkCount(name: string, value: number, least: number, most = Number.MAX_SAFE_INTEGER) {
  if (!Number.isSafeInteger(value) || value < least || value > most) {
    throw new RangeError(`${name} must be an integer from ${least} to ${most}, got ${value}`);
  }
}

function recordOperations(conn: Connection, keys: StoreKeys) {
  return {
    async getRecord(tenant: string, key: string) {
      const k = keys.idempotency(tenant, key);
      const text = await conn.run('get_record', (r) => r.get(k));
      return text === null ? undefined : decodeRecord(text, k);
    },
    async claim(tenant: string, key: string, record: IdempotencyRecord, ttlSeconds: number) {
      const [k, json, ex] = [
        keys.idempotency(tenant, key),
        JSON.stringify(record),
        recordTtl(ttlSeconds),
      ];
      const done = await conn.run('claim', (r) => r.set(k, json, 'EX', ex, 'NX'));
      return done === 'OK';
    },
    async putRecord(
      tenant: string,
      key: string,
      record: IdempotencyRecord,
      ttlSeconds: number,
      settlerToken?: string,
    ) {
      const marked = settlerToken === undefined ? record : { ...record, settledBy: settlerToken };
      const [k, json, ex] = [
        keys.idempotency(tenant, key),
        JSON.stringify(marked),
        recordTtl(ttlSeconds),
      ];
      await conn.run('put_record', (r) => r.set(k, json, 'EX', ex));
    },
    async claimWithPending(
      tenant: string,
      key: string,
      record: IdempotencyRecord,
      ttlSeconds: number,
      pending: PendingCommand,
      deadlineMs: number,
    ) {
      checkCount('deadline (ms)', deadlineMs, 0);
      const k = keys.idempotency(tenant, key);
      const args = [
        JSON.stringify(record),
        recordTtl(ttlSeconds),
        JSON.stringify(pending),
        PENDING_COMMAND_TTL_SECONDS,
        deadlineMs,
        pending.commandId,
      ];
      const pendingKey = keys.pendingCommand(pending.commandId);
      const reply = await conn.script(
        scripts.CLAIM_WITH_PENDING,
        [k, pendingKey, keys.deadlines],
        args,
      );
      return claimOf(reply, k);
    },
    async settleRecord(
      tenant: string,
      key: string,
      record: IdempotencyRecord,
      ttlSeconds: number,
      settlerToken: string,
    ) {
      const k = keys.idempotency(tenant, key);
      const args = settleArgs(record, ttlSeconds, settlerToken);
      const reply = await conn.script(scripts.SETTLE_RECORD, [k], args);
      return settlementOf(reply, k);
    },
  };
}

/** An idempotency record's TTL, refused below 24 h before anything is written. */
function recordTtl(ttlSeconds: number): number {
  checkCount('record TTL (s)', ttlSeconds, MIN_RECORD_TTL_SECONDS);
  return ttlSeconds;
}

/** SETTLE_RECORD's arguments: claim token, the record with `settledBy`, TTL, settler token. */
function settleArgs(record: IdempotencyRecord, ttlSeconds: number, settlerToken: string) {
  const json = JSON.stringify({ ...record, settledBy: settlerToken });
  return [record.token, json, recordTtl(ttlSeconds), settlerToken];
}

function claimOf(reply: unknown, key: string): ClaimWithPending {
  if (!Array.isArray(reply)) throw corrupt('claim reply', key);
  const [flag, holder] = reply as unknown[];
  if (flag === 1) return { claimed: true };
  if (typeof holder !== 'string') throw corrupt('claim reply', key);
  return { claimed: false, record: decodeRecord(holder, key) };
}

function settlementOf(reply: unknown, key: string): Settlement {
  if (!Array.isArray(reply)) throw corrupt('settle reply', key);
  const [flag, previous] = reply as unknown[];
  return {
    settled: flag === 1,
    previous: typeof previous === 'string' ? decodeRecord(previous, key) : undefined,
  };
}

function commandOperations(conn: Connection, keys: StoreKeys, lingerMs: number) {
  checkCount('take linger (ms)', lingerMs, 1);
  return {
    async putPendingCommand(pending: PendingCommand, deadlineMs: number) {
      checkCount('deadline (ms)', deadlineMs, 0);
      const k = keys.pendingCommand(pending.commandId);
      const args = [
        JSON.stringify(pending),
        PENDING_COMMAND_TTL_SECONDS,
        deadlineMs,
        pending.commandId,
      ];
      await conn.script(scripts.PUT_PENDING_COMMAND, [k, keys.deadlines], args);
    },
    async peekPendingCommand(commandId: string) {
      const k = keys.pendingCommand(commandId);
      const json = await conn.run('peek_pending_command', (r) => r.hget(k, 'json'));
      return json === null ? undefined : decode(json, 'pending command', k, isPendingCommand);
    },
    async takePendingCommand(commandId: string, takerToken: string) {
      const k = keys.pendingCommand(commandId);
      const args = [commandId, takerToken, lingerMs];
      const reply = await conn.script(scripts.TAKE_PENDING_COMMAND, [k, keys.deadlines], args);
      return typeof reply === 'string'
        ? decode(reply, 'pending command', k, isPendingCommand)
        : undefined;
    },
    async takeAndSettle(
      expected: PendingCommand,
      takerToken: string,
      record: IdempotencyRecord,
      ttlSeconds: number,
      settlerToken: string,
    ): Promise<TakeAndSettle> {
      const { commandId } = expected;
      const k = keys.idempotency(expected.tenant, expected.idempotencyKey);
      const settle = settleArgs(record, ttlSeconds, settlerToken);
      const args = [commandId, takerToken, lingerMs, JSON.stringify(expected), ...settle];
      const scriptKeys = [keys.pendingCommand(commandId), keys.deadlines, k];
      const reply = await conn.script(scripts.TAKE_AND_SETTLE, scriptKeys, args);
      if (!Array.isArray(reply)) throw corrupt('take and settle reply', k);
      const [step, ...settlement] = reply as unknown[];
      if (step === 0) return { outcome: 'unmatched' };
      if (step === 2) return { outcome: 'changed' };
      if (step === 3) throw corrupt('idempotency record', k);
      if (step !== 1) throw corrupt('take and settle reply', k);
      return { outcome: 'taken', ...settlementOf(settlement, k) };
    },
    async claimExpiredCommands(nowMs: number, leaseMs: number, limit: number) {
      const args = claimArgs(nowMs, leaseMs, limit, keys.pendingCommand(''));
      const reply = await conn.script(scripts.CLAIM_EXPIRED_COMMANDS, [keys.deadlines], args);
      return readClaim(conn, keys.deadlines, reply, 'pending command', isPendingCommand);
    },
    async finishExpiredCommand(commandId: string, options: { readonly retainMs?: number } = {}) {
      const retainMs = options.retainMs ?? 0;
      checkCount('retain (ms)', retainMs, 0);
      const k = keys.pendingCommand(commandId);
      const reply = await conn.script(
        scripts.FINISH_EXPIRED_COMMAND,
        [k, keys.deadlines],
        [commandId, retainMs, Math.max(retainMs, lingerMs)],
      );
      return reply === 1;
    },
  };
}

/**
 * Reads a claim script's `{member, json, …}` reply from `index`. An entry whose JSON is not a `what`
 * leaves the index here (one more round trip, only then) and is reported rather than thrown: one
 * such entry would otherwise fail every sweep it is claimed in, and hold back the rest of its batch.
 */
async function readClaim<T>(
  conn: Connection,
  index: string,
  reply: unknown,
  what: string,
  isT: (v: unknown) => v is T,
): Promise<ExpiredClaim<T>> {
  const flat = strings(reply, index);
  if (flat.length % 2 !== 0) throw corrupt('claim reply', index);
  const claimed: T[] = [];
  const unreadable: { member: string; problem: string }[] = [];
  for (let i = 0; i < flat.length; i += 2) {
    const member = flat[i] as string;
    try {
      claimed.push(decode(flat[i + 1] as string, what, `${index} (${member})`, isT));
    } catch (error) {
      unreadable.push({ member, problem: problemOf(error) });
    }
  }
  if (unreadable.length > 0) {
    const members = unreadable.map((u) => u.member);
    await conn.run('drop_unreadable', (r) => r.zrem(index, ...members));
  }
  return { claimed, unreadable };
}

function problemOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  return error.cause instanceof Error ? `${error.message} (${error.cause.message})` : error.message;
}

function claimArgs(nowMs: number, leaseMs: number, limit: number, prefix: string) {
  checkCount('now (ms)', nowMs, 0);
  checkCount('lease (ms)', leaseMs, 1);
  checkCount('limit', limit, 1, MAX_BATCH);
  return [nowMs, nowMs + leaseMs, limit, prefix];
}

function strings(reply: unknown, key: string): string[] {
  const list: unknown[] = Array.isArray(reply) ? reply : [null];
  if (!list.every((x): x is string => typeof x === 'string')) throw corrupt('script reply', key);
  return list;
}

function confirmationOperations(conn: Connection, keys: StoreKeys, graceMs: number) {
  const keysOf = (tenant: string, id: string) => [
    keys.confirmation(tenant, id),
    keys.confirmationsByTenant(tenant),
    keys.confirmationExpiry,
  ];
  const read = (text: unknown, k: string) =>
    typeof text === 'string' ? decode(text, 'confirmation', k, isPendingConfirmation) : undefined;
  const waiting = async (k: string) => {
    const [json, state] = await conn.run('read_confirmation', (r) => r.hmget(k, 'json', 'state'));
    return state === 'waiting' ? read(json, k) : undefined;
  };
  // One entry that cannot be read must not hide the rest from every approver of its tenant: a
  // listing skips it; the expiry sweeper reports it and drops it from the indexes.
  const listed = (k: string) =>
    waiting(k).catch((error: unknown) => {
      if (error instanceof Fault && error.code === STORE_FAULTS.corrupt) return undefined;
      throw error;
    });
  return {
    async parkConfirmation(pending: PendingConfirmation, ttlMs: number, parkerToken: string) {
      checkCount('confirmation TTL (ms)', ttlMs, 1);
      const expiresAtMs = Date.parse(pending.expiresAt);
      checkCount('expiresAt (ms)', expiresAtMs, 0);
      const { tenant, confirmationId: id } = pending;
      const member = keys.confirmationMember(tenant, id);
      const args = [JSON.stringify(pending), ttlMs + graceMs, expiresAtMs, id, member, parkerToken];
      const k = keys.confirmation(tenant, id);
      const reply = await conn.script(scripts.PARK_CONFIRMATION, keysOf(tenant, id), args);
      const [verdict, json] = Array.isArray(reply) ? (reply as unknown[]) : [];
      const found = read(json, k);
      if (found === undefined) throw corrupt('confirmation', k);
      if (verdict === 'publish') return { publish: found };
      if (verdict === 'standing') return { standing: found };
      throw corrupt('park reply', k);
    },
    peekConfirmation: (tenant: string, id: string) => waiting(keys.confirmation(tenant, id)),
    async readConfirmation(tenant: string, id: string) {
      const k = keys.confirmation(tenant, id);
      const [json, state] = await conn.run('read_confirmation', (r) => r.hmget(k, 'json', 'state'));
      const pending = read(json, k);
      if (pending === undefined) return undefined;
      if (!(CONFIRMATION_STATES as readonly unknown[]).includes(state)) {
        throw corrupt('confirmation state', k);
      }
      return { pending, state: state as ConfirmationState };
    },
    async takeConfirmation(tenant: string, id: string, takerToken: string) {
      const args = [id, keys.confirmationMember(tenant, id), takerToken];
      const reply = await conn.script(scripts.TAKE_CONFIRMATION, keysOf(tenant, id), args);
      return read(reply, keys.confirmation(tenant, id));
    },
    async listPending(tenant: string, limit: number) {
      checkCount('limit', limit, 1, MAX_BATCH);
      const index = keys.confirmationsByTenant(tenant);
      const ids = await conn.run('list_pending', (r) => r.zrange(index, 0, limit - 1));
      const found = await Promise.all(ids.map((id) => listed(keys.confirmation(tenant, id))));
      return found.filter((p): p is PendingConfirmation => p !== undefined);
    },
    async claimExpiredConfirmations(nowMs: number, leaseMs: number, limit: number) {
      const args = claimArgs(nowMs, leaseMs, limit, keys.prefix);
      const index = keys.confirmationExpiry;
      const reply = await conn.script(scripts.CLAIM_EXPIRED_CONFIRMATIONS, [index], args);
      return readClaim(conn, index, reply, 'confirmation', isPendingConfirmation);
    },
    async finishExpiredConfirmation(tenant: string, id: string) {
      const args = [id, keys.confirmationMember(tenant, id)];
      const reply = await conn.script(
        scripts.FINISH_EXPIRED_CONFIRMATION,
        keysOf(tenant, id),
        args,
      );
      return reply === 1;
    },
  };
}

function counterOperations(conn: Connection, keys: StoreKeys) {
  return {
    async countCall(tenant: string, runId: string, callToken: string, nowMs: number, keep: number) {
      checkCount('now (ms)', nowMs, 0);
      checkCount('tokens kept per run', keep, 1);
      const second = Math.floor(nowMs / 1000);
      const ks = [
        keys.runCounter(tenant, runId),
        keys.rateCounter(tenant, second),
        keys.runOverflow(tenant, runId),
      ];
      const args = [callToken, RUN_COUNTER_TTL_SECONDS, RATE_COUNTER_TTL_SECONDS, keep];
      const reply = await conn.script(scripts.COUNT_CALL, ks, args);
      const [callsInRun, tenantCallsThisSecond] = Array.isArray(reply) ? (reply as unknown[]) : [];
      if (typeof callsInRun !== 'number' || typeof tenantCallsThisSecond !== 'number') {
        throw corrupt('call counters', ks[0] ?? '');
      }
      return { callsInRun, tenantCallsThisSecond } satisfies CallCounts;
    },
  };
}

const TOOL_RESULT_STATUSES: readonly unknown[] = ['ok', 'error'];

function isToolResult(v: unknown): v is ToolResult {
  return (
    isObject(v) &&
    hasStrings(v, ['commandId', 'idempotencyKey', 'runId', 'completedAt']) &&
    TOOL_RESULT_STATUSES.includes(v['status'])
  );
}

const LEDGER_STATES: readonly unknown[] = ['running', 'done'];

function ledgerEntryOf(fields: Record<string, string>, k: string): LedgerEntry | undefined {
  if (Object.keys(fields).length === 0) return undefined;
  const { state, token, digest, tool, claimedAt, attempts, result, completedAt } = fields;
  if (
    !LEDGER_STATES.includes(state) ||
    token === undefined ||
    digest === undefined ||
    tool === undefined ||
    claimedAt === undefined
  ) {
    throw corrupt('ledger entry', k);
  }
  return {
    state: state as LedgerEntry['state'],
    token,
    digest,
    tool,
    claimedAt,
    attempts: Number(attempts ?? '1'),
    ...(result === undefined ? {} : { result: decode(result, 'ledger result', k, isToolResult) }),
    ...(completedAt === undefined ? {} : { completedAt }),
  };
}

function ledgerClaimOf(reply: unknown, k: string): LedgerClaim {
  const [outcome, first, second] = Array.isArray(reply) ? (reply as unknown[]) : [];
  const text = (v: unknown) => (typeof v === 'string' ? v : '');
  switch (outcome) {
    case 'claimed':
      return { outcome };
    case 'resumed':
      return { outcome, attempts: typeof first === 'number' ? first : Number(first) };
    case 'done':
      return {
        outcome,
        result: decode(text(first), 'ledger result', k, isToolResult),
        token: text(second),
      };
    case 'conflict':
    case 'busy':
      return { outcome, token: text(first) };
    default:
      throw corrupt('ledger claim reply', k);
  }
}

function ledgerPutOf(reply: unknown, k: string): LedgerPut {
  const [outcome, value] = Array.isArray(reply) ? (reply as unknown[]) : [];
  const text = typeof value === 'string' ? value : '';
  if (outcome === 'recorded' || outcome === 'kept') {
    return { outcome, result: decode(text, 'ledger result', k, isToolResult) };
  }
  if (outcome === 'foreign') return { outcome, token: text };
  throw corrupt('ledger put reply', k);
}

function ledgerOperations(conn: Connection, keys: StoreKeys) {
  const ttl = (ttlSeconds: number) => {
    checkCount('ledger TTL (s)', ttlSeconds, MIN_RECORD_TTL_SECONDS);
    return ttlSeconds;
  };
  return {
    async ledgerClaim(tenant: string, key: string, c: LedgerClaimant, ttlSeconds: number) {
      const k = keys.ledger(tenant, key);
      const args = [c.token, c.digest, c.tool, c.claimedAt, ttl(ttlSeconds)];
      return ledgerClaimOf(await conn.script(scripts.LEDGER_CLAIM, [k], args), k);
    },
    async ledgerPut(
      tenant: string,
      key: string,
      c: LedgerClaimant,
      result: ToolResult,
      ttlSeconds: number,
    ) {
      const k = keys.ledger(tenant, key);
      const json = JSON.stringify(result);
      const args = [
        c.token,
        c.digest,
        c.tool,
        json,
        result.completedAt,
        ttl(ttlSeconds),
        c.claimedAt,
      ];
      return ledgerPutOf(await conn.script(scripts.LEDGER_PUT, [k], args), k);
    },
    async ledgerGet(tenant: string, key: string) {
      const k = keys.ledger(tenant, key);
      return ledgerEntryOf(await conn.run('get_ledger_entry', (r) => r.hgetall(k)), k);
    },
  };
}

function objectOperations(conn: Connection, keys: StoreKeys) {
  const docOf = (object: ResolvedObject) => {
    checkCount('object version', object.version, 0);
    const { type, id, tenant, version, attributes } = object;
    return JSON.stringify({ type, id, tenant, version, attributes });
  };
  return {
    async loadObject(namespace: string, tenant: string, ref: ObjectRef) {
      const k = keys.object(namespace, tenant, ref);
      const text = await conn.run('load_object', (r) => r.hget(k, 'doc'));
      if (text === null) return undefined;
      const object = decode(text, 'object', k, isResolvedObject);
      // The key already holds the tenant; checking again costs nothing and fails closed.
      return object.tenant === tenant && object.type === ref.type && object.id === ref.id
        ? object
        : undefined;
    },
    async seedObject(namespace: string, object: ResolvedObject) {
      const k = keys.object(namespace, object.tenant, object);
      return (await conn.script(scripts.SEED_OBJECT, [k], [object.version, docOf(object)])) === 1;
    },
    async putObject(namespace: string, object: ResolvedObject) {
      const k = keys.object(namespace, object.tenant, object);
      const doc = docOf(object);
      await conn.run('put_object', (r) => r.hset(k, 'v', String(object.version), 'doc', doc));
    },
    async compareAndSetObject(
      namespace: string,
      ref: ObjectRef,
      tenant: string,
      expectedVersion: number,
      attributes: Readonly<Record<string, unknown>>,
    ): Promise<CompareAndSetResult> {
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
      const reply = await conn.script(scripts.COMPARE_AND_SET_OBJECT, [k], args);
      if (reply === 1) return next;
      return reply === 0 ? 'conflict' : 'not_found';
    },
  };
}
