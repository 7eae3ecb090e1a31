--[[
  Records one decided confirmation in its tenant's history. Idempotent per confirmation: the record
  is written again and its index entry set again to its decision time, so a retry (the same
  message delivered again after its transaction failed) replaces the record, never adds one. The
  index keeps no entry older than the TTL and at most the newest `cap`; the records of the entries
  it drops are deleted (their keys are built here from the records' prefix, in the tenant's slot).
  The index lives as long as its newest record.

  KEYS[1] the record
  KEYS[2] the tenant's history index
  ARGV[1] the record's JSON
  ARGV[2] decided at, ms (the entry's score)
  ARGV[3] confirmationId
  ARGV[4] TTL, ms
  ARGV[5] cap
  ARGV[6] the tenant's record key prefix (`<p>decided:{h}:`)
  ARGV[7] oldest score kept, ms
]]
local index = KEYS[2]
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[4])
redis.call('ZADD', index, ARGV[2], ARGV[3])
local dropped = redis.call('ZRANGEBYSCORE', index, '-inf', '(' .. ARGV[7])
local over = redis.call('ZCARD', index) - #dropped - tonumber(ARGV[5])
if over > 0 then
  local oldest = redis.call('ZRANGE', index, #dropped, #dropped + over - 1)
  for _, id in ipairs(oldest) do dropped[#dropped + 1] = id end
end
for _, id in ipairs(dropped) do
  redis.call('DEL', ARGV[6] .. id)
  redis.call('ZREM', index, id)
end
redis.call('PEXPIRE', index, ARGV[4])
return #dropped
