/**
 * Idempotency records (DESIGN §5): per tenant and key, the command's digest, its state and its
 * outcome, kept at least 24 h. Read by authorize and execute; settled by execute's results and its
 * deadline sweeper, exactly one of which publishes a command's terminal outcome.
 */
import { IDEMPOTENCY_STATES, type IdempotencyRecord } from '@toolgate/shared';
import { loadScript } from './load-script.js';
import type { RedisConnection } from './redis-connection.js';
import { corrupt } from './store-faults.js';
import { checkCount, decode, hasStrings, isObject } from './stored-json.js';

/** The least TTL of an idempotency record, in seconds: DESIGN §5 keeps records at least 24 h. */
export const MIN_RECORD_TTL_SECONDS = 24 * 60 * 60;

const SETTLE_RECORD = loadScript('settle-record');

/** What {@link IdempotencyRecords.settleRecord} found and did. */
export interface Settlement {
  /** True when this call replaced the claimed record: the caller publishes the terminal outcome. */
  readonly settled: boolean;
  /** The record as it was before (undefined when there was none). */
  readonly previous: IdempotencyRecord | undefined;
}

/** The idempotency records of every tenant. Claims are made with the pending command. */
export interface IdempotencyRecords {
  /** The idempotency record under `key` for `tenant`, or undefined. */
  getRecord(tenant: string, key: string): Promise<IdempotencyRecord | undefined>;
  /**
   * Overwrites the record (SET EX), e.g. a late result recorded after the deadline sweeper. With
   * `settlerToken`, the record keeps that settler's mark, so that
   * {@link IdempotencyRecords.settleRecord} with the same token still answers settled (the sweeper
   * that settled it, asking again after a fault).
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
}

/** The idempotency records on `conn`. */
export function createIdempotencyRecords(conn: RedisConnection): IdempotencyRecords {
  const { keys } = conn;
  return {
    async getRecord(tenant, key) {
      const k = keys.idempotency(tenant, key);
      const text = await conn.run('get_record', (r) => r.get(k));
      return text === null ? undefined : decodeRecord(text, k);
    },
    async putRecord(tenant, key, record, ttlSeconds, settlerToken) {
      const marked = settlerToken === undefined ? record : { ...record, settledBy: settlerToken };
      const [k, json, ex] = [
        keys.idempotency(tenant, key),
        JSON.stringify(marked),
        recordTtl(ttlSeconds),
      ];
      await conn.run('put_record', (r) => r.set(k, json, 'EX', ex));
    },
    async settleRecord(tenant, key, record, ttlSeconds, settlerToken) {
      const k = keys.idempotency(tenant, key);
      const args = settleArgs(record, ttlSeconds, settlerToken);
      const reply = await conn.script(SETTLE_RECORD, [k], args);
      return settlementOf(reply, k);
    },
  };
}

/** An idempotency record's TTL, refused below 24 h before anything is written. */
export function recordTtl(ttlSeconds: number): number {
  checkCount('record TTL (s)', ttlSeconds, MIN_RECORD_TTL_SECONDS);
  return ttlSeconds;
}

/** The settle script's arguments: claim token, the record with `settledBy`, TTL, settler token. */
export function settleArgs(record: IdempotencyRecord, ttlSeconds: number, settlerToken: string) {
  const json = JSON.stringify({ ...record, settledBy: settlerToken });
  return [record.token, json, recordTtl(ttlSeconds), settlerToken];
}

/** Reads the settle script's `{settled, previous}` reply for the record under `key`. */
export function settlementOf(reply: unknown, key: string): Settlement {
  if (!Array.isArray(reply)) throw corrupt('settle reply', key);
  const [flag, previous] = reply as unknown[];
  return {
    settled: flag === 1,
    previous: typeof previous === 'string' ? decodeRecord(previous, key) : undefined,
  };
}

/** Decodes a stored record, without the store's own `settledBy` mark. */
export function decodeRecord(text: string, key: string): IdempotencyRecord {
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
