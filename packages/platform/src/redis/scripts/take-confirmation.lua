--[[
  Takes a waiting confirmation for one approval: it becomes `taken` by `token` and leaves both
  indexes. The same token gets the JSON again; anything else (taken by another, swept, finished,
  unknown) gets false.

  KEYS[1] the confirmation
  KEYS[2] the tenant's index
  KEYS[3] the expiry index
  ARGV[1] confirmationId
  ARGV[2] expiry index member
  ARGV[3] taker token
]]
local found = redis.call('HMGET', KEYS[1], 'json', 'state', 'takenBy')
local json, state, by = found[1], found[2], found[3]
if state == 'taken' and by == ARGV[3] then return json end
if state ~= 'waiting' then return false end
redis.call('HSET', KEYS[1], 'state', 'taken', 'takenBy', ARGV[3])
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('ZREM', KEYS[3], ARGV[2])
return json
