/**
 * A tool worker's ledger (DESIGN §5, "tool workers dedupe on the key before any side effect"):
 * per tenant and idempotency key, the command that claimed it and, once done, its result. The
 * only part of the store a tool worker is given; its Redis user may touch nothing else but the
 * objects its tools own.
 */
import type { ToolResult } from '@toolgate/shared';
import { MIN_RECORD_TTL_SECONDS } from './idempotency-records.js';
import { loadScript } from './load-script.js';
import type { RedisConnection } from './redis-connection.js';
import { corrupt } from './store-faults.js';
import { checkCount, decode, hasStrings, isObject } from './stored-json.js';

const LEDGER_CLAIM = loadScript('ledger-claim');
const LEDGER_PUT = loadScript('ledger-put');
const LEDGER_RENEW = loadScript('ledger-renew');

/**
 * Default length of the lease a delivery holds on a running entry: 15 s. A delivery renews it every
 * third of its length while its handler runs; another delivery of the same command waits while
 * it is live, and takes the command over once it has lapsed (the holder crashed or was paused).
 */
export const DEFAULT_LEDGER_LEASE_MS = 15_000;

/** What a tool worker claims an idempotency key with, in its ledger. */
export interface LedgerClaimant {
  /** The claim token: the command id, the same on every delivery of one command. */
  readonly token: string;
  /** `commandDigest` of the command: the same key with another digest is a conflict. */
  readonly digest: string;
  readonly tool: string;
  /** ISO-8601 instant of the claim. */
  readonly claimedAt: string;
  /**
   * The delivery that claims: a random id per delivery, so that two deliveries of one command
   * (same token) are told apart by the lease. Default the token.
   */
  readonly holder?: string;
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
  /** The delivery holding the lease, while running (absent on entries written without one). */
  readonly holder?: string;
  /** Until when its lease runs, in ms since the epoch on Redis's clock. */
  readonly leaseUntil?: number;
  /** The recorded result, when done. */
  readonly result?: ToolResult;
  readonly completedAt?: string;
}

/** What {@link Ledger.ledgerClaim} found. */
export type LedgerClaim =
  /** New: this delivery runs the command. */
  | { readonly outcome: 'claimed' }
  /**
   * The same command held the claim without a result and its lease lapsed: a redelivery after a
   * crash proceeds, and holds the lease now.
   */
  | { readonly outcome: 'resumed'; readonly attempts: number }
  /**
   * The same command runs under another delivery's live lease (`leaseUntil`, ms, Redis clock): run
   * nothing, deliver it again later.
   */
  | { readonly outcome: 'running'; readonly holder: string; readonly leaseUntil: number }
  /** A result is recorded: publish it again, run nothing. */
  | { readonly outcome: 'done'; readonly result: ToolResult; readonly token: string }
  /** The key holds a command with another digest. */
  | { readonly outcome: 'conflict'; readonly token: string }
  /** Another command (same digest, other id) holds the claim and has no result yet. */
  | { readonly outcome: 'busy'; readonly token: string };

/** What {@link Ledger.ledgerPut} did. */
export type LedgerPut =
  /** `recorded`: this call wrote `result`; `kept`: one was there already, and it is `result`. */
  | { readonly outcome: 'recorded' | 'kept'; readonly result: ToolResult }
  /** Another command holds the claim: nothing written. */
  | { readonly outcome: 'foreign'; readonly token: string };

/** What {@link Ledger.ledgerRenew} found. */
export type LedgerRenew =
  /** The lease is this delivery's until `leaseUntil` (ms, Redis clock). */
  | { readonly outcome: 'renewed'; readonly leaseUntil: number }
  /** Done, gone, or held by `holder`: another delivery took the command over. */
  | { readonly outcome: 'lost'; readonly holder: string };

/** A tool worker's ledger. Every method rejects with a Fault when Redis fails. */
export interface Ledger {
  /** Resolves when the ledger's Redis answers PING (a worker checks it before consuming). */
  ping(): Promise<void>;
  /**
   * A tool worker's claim on `key` before any side effect (Lua; TTL ≥ 24 h), with a lease of
   * `leaseMs` (default {@link DEFAULT_LEDGER_LEASE_MS}) for its holder, in the same round trip.
   * Safe to repeat: the same claimant and holder asking again is told `resumed`, never `busy`.
   */
  ledgerClaim(
    tenant: string,
    key: string,
    claimant: LedgerClaimant,
    ttlSeconds: number,
    leaseMs?: number,
  ): Promise<LedgerClaim>;
  /**
   * Extends the claimant's lease to `leaseMs` from now (Redis clock), if its holder still holds
   * the running entry (Lua).
   */
  ledgerRenew(
    tenant: string,
    key: string,
    claimant: LedgerClaimant,
    leaseMs: number,
  ): Promise<LedgerRenew>;
  /**
   * Ends the claimant's lease now, if its holder still holds the running entry (Lua): a delivery
   * that faulted and records nothing lets its own redelivery resume at once.
   */
  ledgerRelease(tenant: string, key: string, claimant: LedgerClaimant): Promise<LedgerRenew>;
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
}

/** The ledger on `conn`. */
export function createLedger(conn: RedisConnection): Ledger {
  const { keys } = conn;
  const ttl = (ttlSeconds: number) => {
    checkCount('ledger TTL (s)', ttlSeconds, MIN_RECORD_TTL_SECONDS);
    return ttlSeconds;
  };
  const lease = (leaseMs: number) => {
    checkCount('ledger lease (ms)', leaseMs, 1);
    return leaseMs;
  };
  return {
    ping: () => conn.ping(),
    async ledgerClaim(tenant, key, c, ttlSeconds, leaseMs = DEFAULT_LEDGER_LEASE_MS) {
      const k = keys.ledger(tenant, key);
      const holder = c.holder ?? c.token;
      const args = [
        c.token,
        c.digest,
        c.tool,
        c.claimedAt,
        ttl(ttlSeconds),
        holder,
        lease(leaseMs),
      ];
      return ledgerClaimOf(await conn.script(LEDGER_CLAIM, [k], args), k);
    },
    async ledgerRenew(tenant, key, c, leaseMs) {
      const k = keys.ledger(tenant, key);
      const args = [c.token, c.holder ?? c.token, lease(leaseMs)];
      return ledgerRenewOf(await conn.script(LEDGER_RENEW, [k], args), k);
    },
    async ledgerRelease(tenant, key, c) {
      const k = keys.ledger(tenant, key);
      // A lease of 0 ms ends now: the claim script takes over a lease that is not in the future.
      const args = [c.token, c.holder ?? c.token, 0];
      return ledgerRenewOf(await conn.script(LEDGER_RENEW, [k], args), k);
    },
    async ledgerPut(tenant, key, c, result, ttlSeconds) {
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
      return ledgerPutOf(await conn.script(LEDGER_PUT, [k], args), k);
    },
    async ledgerGet(tenant, key) {
      const k = keys.ledger(tenant, key);
      return ledgerEntryOf(await conn.run('get_ledger_entry', (r) => r.hgetall(k)), k);
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
  const { holder, leaseUntil } = fields;
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
    ...(holder === undefined ? {} : { holder }),
    ...(leaseUntil === undefined ? {} : { leaseUntil: Number(leaseUntil) }),
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
    case 'running':
      return { outcome, holder: text(first), leaseUntil: Number(second) };
    case 'conflict':
    case 'busy':
      return { outcome, token: text(first) };
    default:
      throw corrupt('ledger claim reply', k);
  }
}

function ledgerRenewOf(reply: unknown, k: string): LedgerRenew {
  const [outcome, value] = Array.isArray(reply) ? (reply as unknown[]) : [];
  if (outcome === 'renewed') return { outcome, leaseUntil: Number(value) };
  if (outcome === 'lost') return { outcome, holder: typeof value === 'string' ? value : '' };
  throw corrupt('ledger renew reply', k);
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
