/**
 * The store's Lua scripts: each runs atomically in Redis, which is why it exists. Plain text here
 * (no client), run by `store.ts` with EVALSHA and an EVAL fallback. Numbers that Redis stores
 * (scores, versions, TTLs) are computed in TypeScript and passed as decimal strings, so no Lua
 * number formatting ever reaches a key or a score.
 *
 * Takes are idempotent per taker: a pending command or confirmation remembers the token of whoever
 * took it, and the same token gets the same answer again. A reply lost with a dropped connection
 * is then harmless: Kafka redelivers the message, the handler takes again with the same token
 * (its message's coordinates) and carries on, where a plain GETDEL would answer "gone" and the
 * proposal would never get its terminal observation.
 */
import { createHash } from 'node:crypto';
import { IDEMPOTENCY_STATES } from '@toolgate/shared';

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
 * Lua: replaces the idempotency record at `key` only while it is still `claimed` under
 * `claimToken`, so that a result and the deadline sweeper cannot both settle one command. The
 * written record carries `settledBy`, the settler's own token: the same settler asking again (a
 * retry after a lost reply, or its message redelivered) is told it settled, so it publishes the
 * terminal outcome it owes. Returns `{1, previous}` when settled by this settler, `{0, previous}`
 * (or `{0}`) otherwise.
 */
const SETTLE_FUNCTION = `local function settle(key, claimToken, json, ttl, settler)
  local current = redis.call('GET', key)
  if not current then return {0} end
  local ok, record = pcall(cjson.decode, current)
  if not ok or type(record) ~= 'table' then return {0, current} end
  if record.state == 'claimed' and record.token == claimToken then
    redis.call('SET', key, json, 'EX', ttl)
    return {1, current}
  end
  if record.settledBy == settler then return {1, current} end
  return {0, current}
end
`;

/**
 * Settles an idempotency record (see `settle` above).
 * KEYS: record. ARGV: claim token, next JSON (with settledBy), TTL seconds, settler token.
 */
export const SETTLE_RECORD = script(
  'settle_record',
  `${SETTLE_FUNCTION}return settle(KEYS[1], ARGV[1], ARGV[2], ARGV[3], ARGV[4])`,
);

/**
 * Stores a pending command (a hash: `json`, `takenBy` once a result took it, `swept` once the
 * deadline sweeper claimed it) and indexes its deadline together, so a crash cannot leave a
 * command the deadline sweeper never sees. Replaces any earlier state of the same command.
 * KEYS: pending, deadlines. ARGV: JSON, TTL seconds, deadline ms, commandId.
 */
export const PUT_PENDING_COMMAND = script(
  'put_pending_command',
  `redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'json', ARGV[1])
redis.call('EXPIRE', KEYS[1], ARGV[2])
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[4])
return 1`,
);

/**
 * Claims an idempotency key (SET NX) and, only when the claim is won, stores the pending command
 * and indexes its deadline as {@link PUT_PENDING_COMMAND} does: one round trip for a fresh call,
 * and no moment where a claim exists without its pending command. A lost claim answers the
 * record that holds the key. KEYS: record, pending, deadlines. ARGV: record JSON, record TTL
 * seconds, pending JSON, pending TTL seconds, deadline ms, commandId. Returns {1} or {0, record}.
 */
export const CLAIM_WITH_PENDING = script(
  'claim_with_pending',
  `if redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2], 'NX') then
  redis.call('DEL', KEYS[2])
  redis.call('HSET', KEYS[2], 'json', ARGV[3])
  redis.call('EXPIRE', KEYS[2], ARGV[4])
  redis.call('ZADD', KEYS[3], ARGV[5], ARGV[6])
  return {1}
end
return {0, redis.call('GET', KEYS[1])}`,
);

/**
 * Lua: takes a pending command for a result. The first taker marks it with its token and removes
 * the deadline, unless the deadline sweeper has claimed the command: that entry stays for the
 * sweeper to finish (see {@link CLAIM_EXPIRED_COMMANDS}). The same token gets the JSON again, any
 * other gets false. The taken hash lingers `linger` ms for such retries; a swept one keeps a longer
 * TTL, because the sweep that may owe its terminal observation has not finished it (or kept it
 * `retain` ms for this very result), and {@link FINISH_EXPIRED_COMMAND} sets it then. With
 * `expected`, a stored JSON that differs is answered without being taken.
 */
const TAKE_FUNCTION = `local function take(pending, deadlines, commandId, taker, linger, expected)
  local found = redis.call('HMGET', pending, 'json', 'takenBy', 'swept')
  local json, by = found[1], found[2]
  if not json then return false end
  if by then
    if by == taker then return json end
    return false
  end
  if expected and json ~= expected then return json end
  redis.call('HSET', pending, 'takenBy', taker)
  if not found[3] then
    redis.call('PEXPIRE', pending, linger)
    redis.call('ZREM', deadlines, commandId)
  elseif redis.call('PTTL', pending) < tonumber(linger) then
    redis.call('PEXPIRE', pending, linger)
  end
  return json
end
`;

/**
 * Takes a pending command for a result (see `take` above).
 * KEYS: pending, deadlines. ARGV: commandId, token, linger ms.
 */
export const TAKE_PENDING_COMMAND = script(
  'take_pending_command',
  `${TAKE_FUNCTION}return take(KEYS[1], KEYS[2], ARGV[1], ARGV[2], ARGV[3])`,
);

/**
 * Lua: whether the idempotency record at `key` is absent or has the shape the gate writes (the
 * store decodes it the same way), so that a step that must settle it can refuse before it changes
 * anything: Redis keeps a script's earlier writes when a later step fails.
 */
const READABLE_FUNCTION = `local STATES = {${IDEMPOTENCY_STATES.map((s) => `['${s}'] = true`).join(', ')}}
local function readable(key)
  local current = redis.call('GET', key)
  if not current then return true end
  local ok, record = pcall(cjson.decode, current)
  return ok and type(record) == 'table' and type(record.digest) == 'string'
    and type(record.token) == 'string' and STATES[record.state] == true
end
`;

/**
 * Takes a pending command and settles its idempotency record in one step, for a result whose
 * pending command the caller already holds a copy of (execute issued it, or read it just before)
 * and checked the result against: only when Redis holds exactly that copy. Replies `{0}` when the
 * command is gone or another taker has it (nothing done), `{2}` when Redis holds another JSON
 * (nothing done: take it and settle apart), `{3}` when the record is not one the gate wrote
 * (nothing done: the command keeps its deadline, so the sweeper still ends the call),
 * `{1, settled, previous}` when this taker has it, `settled` and `previous` as
 * {@link SETTLE_RECORD} answers. KEYS: pending, deadlines, record. ARGV: commandId, taker token,
 * linger ms, expected pending JSON, claim token, next record JSON (with settledBy), TTL seconds,
 * settler token.
 */
export const TAKE_AND_SETTLE = script(
  'take_and_settle',
  `${TAKE_FUNCTION}${SETTLE_FUNCTION}${READABLE_FUNCTION}
if not readable(KEYS[3]) then return {3} end
local json = take(KEYS[1], KEYS[2], ARGV[1], ARGV[2], ARGV[3], ARGV[4])
if not json then return {0} end
if json ~= ARGV[4] then return {2} end
local settled = settle(KEYS[3], ARGV[5], ARGV[6], ARGV[7], ARGV[8])
return {1, settled[1], settled[2]}`,
);

/**
 * Claims up to `limit` commands whose deadline (or earlier lease) has passed: each is marked
 * `swept` and re-scored to the lease end, so if the sweeper fails or dies before finishing it, it
 * becomes due again. A swept command stays claimable after a result took it: the sweep may have
 * settled its record as unknown, and then the sweep, not the late result, owes the terminal
 * observation (its settler token answers "settled" again). Index entries of commands that are
 * gone, or taken by a result before any sweep claimed them, are dropped. Returns each claimed
 * command's id and pending JSON, one after the other (`{id, json, id, json, …}`).
 * KEYS: deadlines. ARGV: now ms, lease end ms, limit, pending-key prefix.
 */
export const CLAIM_EXPIRED_COMMANDS = script(
  'claim_expired_commands',
  `local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, ARGV[3])
local out = {}
for _, id in ipairs(ids) do
  local found = redis.call('HMGET', ARGV[4] .. id, 'json', 'takenBy', 'swept')
  if found[1] and (found[3] or not found[2]) then
    redis.call('HSET', ARGV[4] .. id, 'swept', '1')
    redis.call('ZADD', KEYS[1], ARGV[2], id)
    out[#out + 1] = id
    out[#out + 1] = found[1]
  else
    redis.call('ZREM', KEYS[1], id)
  end
end
return out`,
);

/**
 * Ends a swept command: leaves the deadline index; the pending hash is deleted, or kept `retain` ms
 * so that a late result can still be matched to its tenant and key. One a result took meanwhile
 * is kept `retain` ms or its taker's `linger` ms, whichever is longer, for the taker's retries.
 * Returns 1 when the command was still indexed.
 * KEYS: pending, deadlines. ARGV: commandId, retain ms, the longer of retain and linger ms.
 */
export const FINISH_EXPIRED_COMMAND = script(
  'finish_expired_command',
  `local removed = redis.call('ZREM', KEYS[2], ARGV[1])
if redis.call('HEXISTS', KEYS[1], 'takenBy') == 1 then
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
  return removed
end
if tonumber(ARGV[2]) > 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
else
  redis.call('DEL', KEYS[1])
end
return removed`,
);

/**
 * Parks a confirmation once and indexes it by tenant and by expiry in the same step. The hash holds
 * `json`, `state` and `parkedBy`; `state` goes `waiting` → `taken` (an approval, with `takenBy`) or
 * `swept` (the expiry sweeper) → `finished`. A hash in any state blocks parking again, so a
 * redelivered message can never revive a decided confirmation. Returns `{'publish', JSON}`: the
 * new JSON when parked, the stored one when the same parker (the same message, delivered again)
 * parked it and it still waits; otherwise `{'standing', stored JSON}` (another message parked it,
 * or it was decided), read in the same step so that the caller can tell a duplicate from another
 * call under the same id even if the confirmation expires right after.
 * KEYS: confirmation, by-tenant, expiry. ARGV: JSON, PX ms, expiry ms, id, expiry member, parker.
 */
export const PARK_CONFIRMATION = script(
  'park_confirmation',
  `if redis.call('EXISTS', KEYS[1]) == 1 then
  local found = redis.call('HMGET', KEYS[1], 'json', 'state', 'parkedBy')
  if found[2] == 'waiting' and found[3] == ARGV[6] then return {'publish', found[1]} end
  return {'standing', found[1]}
end
redis.call('HSET', KEYS[1], 'json', ARGV[1], 'state', 'waiting', 'parkedBy', ARGV[6])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[4])
redis.call('ZADD', KEYS[3], ARGV[3], ARGV[5])
return {'publish', ARGV[1]}`,
);

/**
 * Takes a waiting confirmation for one approval: it becomes `taken` by `token` and leaves both
 * indexes. The same token gets the JSON again; anything else (taken by another, swept, finished,
 * unknown) gets false. KEYS: confirmation, by-tenant, expiry. ARGV: id, expiry member, token.
 */
export const TAKE_CONFIRMATION = script(
  'take_confirmation',
  `local found = redis.call('HMGET', KEYS[1], 'json', 'state', 'takenBy')
local json, state, by = found[1], found[2], found[3]
if state == 'taken' and by == ARGV[3] then return json end
if state ~= 'waiting' then return false end
redis.call('HSET', KEYS[1], 'state', 'taken', 'takenBy', ARGV[3])
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('ZREM', KEYS[3], ARGV[2])
return json`,
);

/**
 * Claims up to `limit` confirmations whose expiry (or earlier lease) has passed: each becomes
 * `swept` (no approval can take it any more), leaves its tenant index and is re-scored to the lease
 * end. Entries that are gone, taken or finished are dropped from both indexes: one whose JSON
 * outlived its grace before a sweep came would otherwise stay in its tenant index for good, at
 * the head of every listing. Returns each claimed entry's index member and pending JSON, one after
 * the other. KEYS: expiry. ARGV: now ms, lease end ms, limit, key prefix.
 */
export const CLAIM_EXPIRED_CONFIRMATIONS = script(
  'claim_expired_confirmations',
  `local members = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, ARGV[3])
local out = {}
for _, member in ipairs(members) do
  local tag = '{' .. string.sub(member, 1, 16) .. '}'
  local id = string.sub(member, 18)
  local key = ARGV[4] .. 'conf:' .. tag .. ':' .. id
  local found = redis.call('HMGET', key, 'json', 'state')
  if found[1] and (found[2] == 'waiting' or found[2] == 'swept') then
    redis.call('HSET', key, 'state', 'swept')
    redis.call('ZREM', ARGV[4] .. 'conf-by-tenant:' .. tag, id)
    redis.call('ZADD', KEYS[1], ARGV[2], member)
    out[#out + 1] = member
    out[#out + 1] = found[1]
  else
    redis.call('ZREM', ARGV[4] .. 'conf-by-tenant:' .. tag, id)
    redis.call('ZREM', KEYS[1], member)
  end
end
return out`,
);

/**
 * Ends a swept confirmation: it leaves the expiry index and becomes `finished` (kept until its
 * TTL, blocking a re-park). Returns 1 when it was still indexed.
 * KEYS: confirmation, by-tenant, expiry. ARGV: id, expiry member.
 */
export const FINISH_EXPIRED_CONFIRMATION = script(
  'finish_expired_confirmation',
  `local removed = redis.call('ZREM', KEYS[3], ARGV[2])
redis.call('ZREM', KEYS[2], ARGV[1])
if redis.call('HGET', KEYS[1], 'state') == 'swept' then
  redis.call('HSET', KEYS[1], 'state', 'finished')
end
return removed`,
);

/**
 * Counts one call, in one round trip: adds `token` to the run's set (so a redelivered message
 * is not counted twice: a run over its limit is a final denial) and, only when the token is new
 * there, increments the tenant's per-second counter; a redelivery reads that counter instead (at
 * least 1: the call itself), so a chunk handled again after a fault does not use up the tenant's
 * rate.
 * The set keeps at most `keep` tokens, so a run that goes on calling past its limit does not grow
 * it for a day: past them a new token is counted in the run's overflow counter, not told apart
 * (a redelivered one is counted again there and in the rate; the run is over its limit already).
 * Returns {calls in run, tenant calls this second}.
 * KEYS: run set, rate counter, run overflow counter. ARGV: token, run TTL seconds, rate TTL
 * seconds, keep.
 */
export const COUNT_CALL = script(
  'count_call',
  `local inRun = redis.call('SCARD', KEYS[1])
local new = redis.call('SISMEMBER', KEYS[1], ARGV[1]) == 0
if new then
  if inRun < tonumber(ARGV[4]) then
    inRun = inRun + redis.call('SADD', KEYS[1], ARGV[1])
  else
    redis.call('INCR', KEYS[3])
  end
end
redis.call('EXPIRE', KEYS[1], ARGV[2])
redis.call('EXPIRE', KEYS[3], ARGV[2])
local rate
if new then
  rate = redis.call('INCR', KEYS[2])
  redis.call('EXPIRE', KEYS[2], ARGV[3])
else
  rate = math.max(tonumber(redis.call('GET', KEYS[2]) or '0'), 1)
end
return {inRun + tonumber(redis.call('GET', KEYS[3]) or '0'), rate}`,
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

/**
 * A tool worker claims an idempotency key before any side effect. The entry is a hash: `state`
 * (`running` → `done`), `token` (the claimer: the command id), `digest` (what the command does),
 * `tool`, `claimedAt`, `attempts`, and once done `result` (the ToolResult JSON) and `completedAt`.
 * Replies: `{'claimed'}` (new entry), `{'resumed', attempts}` (the same token was running: a
 * redelivery after a crash, or a retry after a lost reply), `{'done', result, token}` (replay it),
 * `{'conflict', token}` (another digest under this key), `{'busy', token}` (another command runs).
 * KEYS: ledger entry. ARGV: token, digest, tool, claimedAt, TTL seconds.
 */
export const LEDGER_CLAIM = script(
  'ledger_claim',
  `local found = redis.call('HMGET', KEYS[1], 'state', 'token', 'digest', 'result')
local state, token, digest, result = found[1], found[2], found[3], found[4]
if not state then
  redis.call('HSET', KEYS[1], 'state', 'running', 'token', ARGV[1], 'digest', ARGV[2],
    'tool', ARGV[3], 'claimedAt', ARGV[4], 'attempts', 1)
  redis.call('EXPIRE', KEYS[1], ARGV[5])
  return {'claimed'}
end
if digest ~= ARGV[2] then return {'conflict', token or ''} end
if state == 'done' and result then return {'done', result, token or ''} end
if token == ARGV[1] then
  return {'resumed', redis.call('HINCRBY', KEYS[1], 'attempts', 1)}
end
return {'busy', token or ''}`,
);

/**
 * Records a tool worker's result under its claim, once: the first result stays. Replies
 * `{'recorded', json}` when this call wrote it, `{'kept', json}` when a result was there already
 * (a repeat, or a concurrent delivery of the same command that finished first: publish that one),
 * `{'foreign', token}` when another command holds the claim (nothing written). An entry that has
 * vanished is written whole. KEYS: ledger entry. ARGV: token, digest, tool, result JSON,
 * completedAt, TTL seconds, claimedAt.
 */
export const LEDGER_PUT = script(
  'ledger_put',
  `local found = redis.call('HMGET', KEYS[1], 'state', 'token', 'result')
if found[1] == 'done' and found[3] then return {'kept', found[3]} end
if found[1] and found[2] ~= ARGV[1] then return {'foreign', found[2] or ''} end
redis.call('HSET', KEYS[1], 'state', 'done', 'token', ARGV[1], 'digest', ARGV[2], 'tool', ARGV[3],
  'result', ARGV[4], 'completedAt', ARGV[5])
redis.call('HSETNX', KEYS[1], 'claimedAt', ARGV[7])
redis.call('HSETNX', KEYS[1], 'attempts', 1)
redis.call('EXPIRE', KEYS[1], ARGV[6])
return {'recorded', ARGV[4]}`,
);
