--[[
  Claims up to `limit` commands whose deadline (or earlier lease) has passed: each is marked
  `swept` and re-scored to the lease end, so if the sweeper fails or dies before finishing it, it
  becomes due again. A swept command stays claimable after a result took it: the sweep may have
  settled its record as unknown, and then the sweep, not the late result, owes the terminal
  observation (its settler token answers "settled" again). Index entries of commands that are
  gone, or taken by a result before any sweep claimed them, are dropped. Returns each claimed
  command's id and pending JSON, one after the other (`{id, json, id, json, ...}`).

  KEYS[1] the deadline index
  ARGV[1] now, ms
  ARGV[2] lease end, ms
  ARGV[3] limit
  ARGV[4] pending-command key prefix
]]
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, ARGV[3])
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
return out
