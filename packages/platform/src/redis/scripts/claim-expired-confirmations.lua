--[[
  Claims up to `limit` confirmations whose expiry (or earlier lease) has passed: each becomes
  `swept` (no approval can take it any more), leaves its tenant index and is re-scored to the
  lease end. Entries that are gone, taken or finished are dropped from both indexes: one whose
  JSON outlived its grace before a sweep came would otherwise stay in its tenant index for good,
  at the head of every listing. Returns each claimed entry's index member and pending JSON, one
  after the other. The keys are built here from the members, as store-keys.ts lays them out.

  KEYS[1] the expiry index
  ARGV[1] now, ms
  ARGV[2] lease end, ms
  ARGV[3] limit
  ARGV[4] key prefix
]]
local members = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, ARGV[3])
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
return out
