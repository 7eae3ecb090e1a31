/**
 * The store's Lua scripts: each runs atomically in Redis, which is why it exists. Plain text here
 * (no client), run by `store.ts` with EVALSHA and an EVAL fallback. Numbers that Redis stores
 * (scores, versions, TTLs) are computed in TypeScript and passed as decimal strings, so no Lua
 * number formatting ever reaches a key or a score. A decided or swept confirmation is kept as an
 * empty string (a tombstone with the remaining TTL), so a redelivered message cannot park it again.
 */
import { createHash } from 'node:crypto';

/** A script and its SHA-1 (the EVALSHA handle). */
export interface StoreScript {
  /** For fault messages. */
  readonly name: string;
  readonly lua: string;
  readonly sha: string;
}

function script(name: string, lua: string): StoreScript {
  return Object.freeze({ name, lua, sha: createHash('sha1').update(lua).digest('hex') });
}

/**
 * Replaces an idempotency record only while it is still `claimed` under the given token, so that a
 * result and the deadline sweeper cannot both settle one command. Returns `{1, previous}` when it
 * wrote, `{0, previous}` (or `{0}` without a record) when it did not.
 * KEYS: record. ARGV: token, next JSON, TTL seconds.
 */
export const SETTLE_RECORD = script(
  'settle_record',
  `local current = redis.call('GET', KEYS[1])
if not current then return {0} end
local ok, record = pcall(cjson.decode, current)
if ok and type(record) == 'table' and record.state == 'claimed' and record.token == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[2], 'EX', ARGV[3])
  return {1, current}
end
return {0, current}`,
);

/**
 * Stores a pending command and indexes its deadline together, so a crash cannot leave a command
 * that the deadline sweeper never sees.
 * KEYS: pending, deadlines. ARGV: JSON, TTL seconds, deadline ms, commandId.
 */
export const PUT_PENDING_COMMAND = script(
  'put_pending_command',
  `redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2])
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[4])
return 1`,
);

/**
 * Takes a pending command once: GETDEL decides who has it (a result or nobody), then it leaves the
 * deadline index. KEYS: pending, deadlines. ARGV: commandId.
 */
export const TAKE_PENDING_COMMAND = script(
  'take_pending_command',
  `local json = redis.call('GETDEL', KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[1])
return json`,
);

/**
 * Claims up to `limit` commands whose deadline (or earlier lease) has passed: each is re-scored to
 * the lease end, so if the sweeper dies before finishing it, it becomes due again. Index entries
 * whose command is gone (taken by a result) are dropped. Returns the pending JSONs.
 * KEYS: deadlines. ARGV: now ms, lease end ms, limit, pending-key prefix.
 */
export const CLAIM_EXPIRED_COMMANDS = script(
  'claim_expired_commands',
  `local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, ARGV[3])
local out = {}
for _, id in ipairs(ids) do
  local json = redis.call('GET', ARGV[4] .. id)
  if json then
    redis.call('ZADD', KEYS[1], ARGV[2], id)
    out[#out + 1] = json
  else
    redis.call('ZREM', KEYS[1], id)
  end
end
return out`,
);

/**
 * Ends a swept command: leaves the deadline index; the pending JSON is deleted, or kept for
 * `retain` ms so that a late result can still be matched to its tenant and key. Returns 1 when
 * the command was still indexed. KEYS: pending, deadlines. ARGV: commandId, retain ms.
 */
export const FINISH_EXPIRED_COMMAND = script(
  'finish_expired_command',
  `local removed = redis.call('ZREM', KEYS[2], ARGV[1])
if tonumber(ARGV[2]) > 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
else
  redis.call('DEL', KEYS[1])
end
return removed`,
);

/**
 * Parks a confirmation once (SET NX; the tombstone of a decided one also blocks it) and indexes
 * it by tenant and by expiry in the same step. Returns 1 when parked, 0 when it existed.
 * KEYS: confirmation, by-tenant, expiry. ARGV: JSON, PX ms, expiry ms, id, expiry member.
 */
export const PARK_CONFIRMATION = script(
  'park_confirmation',
  `if not redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[4])
redis.call('ZADD', KEYS[3], ARGV[3], ARGV[5])
return 1`,
);

/**
 * Takes a confirmation for an approval, once. Membership of the tenant index is the right to decide:
 * the expiry sweeper removes it when it claims, so an approval and the sweeper can never both
 * act on one confirmation. Leaves a tombstone. Returns the JSON or false.
 * KEYS: confirmation, by-tenant, expiry. ARGV: id, expiry member.
 */
export const TAKE_CONFIRMATION = script(
  'take_confirmation',
  `if redis.call('ZREM', KEYS[2], ARGV[1]) == 0 then return false end
redis.call('ZREM', KEYS[3], ARGV[2])
local json = redis.call('GET', KEYS[1])
if not json or json == '' then return false end
redis.call('SET', KEYS[1], '', 'KEEPTTL')
return json`,
);

/**
 * Claims up to `limit` confirmations whose expiry (or earlier lease) has passed: each leaves its
 * tenant index (no approval can take it any more) and is re-scored to the lease end. Entries
 * whose JSON is gone are dropped. Returns the pending JSONs.
 * KEYS: expiry. ARGV: now ms, lease end ms, limit, key prefix.
 */
export const CLAIM_EXPIRED_CONFIRMATIONS = script(
  'claim_expired_confirmations',
  `local members = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, ARGV[3])
local out = {}
for _, member in ipairs(members) do
  local tag = '{' .. string.sub(member, 1, 16) .. '}'
  local id = string.sub(member, 18)
  redis.call('ZREM', ARGV[4] .. 'conf-by-tenant:' .. tag, id)
  local json = redis.call('GET', ARGV[4] .. 'conf:' .. tag .. ':' .. id)
  if json and json ~= '' then
    redis.call('ZADD', KEYS[1], ARGV[2], member)
    out[#out + 1] = json
  else
    redis.call('ZREM', KEYS[1], member)
  end
end
return out`,
);

/**
 * Ends a swept confirmation: leaves both indexes and becomes a tombstone (only if it still
 * exists, so no key without a TTL is ever created). Returns 1 when it was still indexed.
 * KEYS: confirmation, by-tenant, expiry. ARGV: id, expiry member.
 */
export const FINISH_EXPIRED_CONFIRMATION = script(
  'finish_expired_confirmation',
  `local removed = redis.call('ZREM', KEYS[3], ARGV[2])
redis.call('ZREM', KEYS[2], ARGV[1])
local json = redis.call('GET', KEYS[1])
if json and json ~= '' then redis.call('SET', KEYS[1], '', 'KEEPTTL') end
return removed`,
);

/**
 * Counts one call in its run and in the tenant's current second, in one round trip.
 * KEYS: run counter, rate counter. ARGV: run TTL seconds, rate TTL seconds.
 */
export const COUNT_CALL = script(
  'count_call',
  `local calls = redis.call('INCR', KEYS[1])
redis.call('EXPIRE', KEYS[1], ARGV[1])
local rate = redis.call('INCR', KEYS[2])
redis.call('EXPIRE', KEYS[2], ARGV[2])
return {calls, rate}`,
);

/**
 * Writes an object only if it is absent (a hash: `v` version, `doc` JSON). Returns 1 when written.
 * KEYS: object. ARGV: version, JSON.
 */
export const SEED_OBJECT = script(
  'seed_object',
  `if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'v', ARGV[1], 'doc', ARGV[2])
return 1`,
);

/**
 * Compare-and-set of an object: writes the next version only if the stored version is the
 * expected one. Returns 1 written, 0 version mismatch, -1 no such object.
 * KEYS: object. ARGV: expected version, next version, next JSON.
 */
export const COMPARE_AND_SET_OBJECT = script(
  'compare_and_set_object',
  `local v = redis.call('HGET', KEYS[1], 'v')
if not v then return -1 end
if v ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'v', ARGV[2], 'doc', ARGV[3])
return 1`,
);
