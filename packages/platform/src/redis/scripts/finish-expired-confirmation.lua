--[[
  Ends a swept confirmation: it leaves the expiry index and becomes `finished` (kept until its
  TTL, blocking a re-park). Returns 1 when it was still indexed.

  KEYS[1] the confirmation
  KEYS[2] the tenant's index
  KEYS[3] the expiry index
  ARGV[1] confirmationId
  ARGV[2] expiry index member
]]
local removed = redis.call('ZREM', KEYS[3], ARGV[2])
redis.call('ZREM', KEYS[2], ARGV[1])
if redis.call('HGET', KEYS[1], 'state') == 'swept' then
  redis.call('HSET', KEYS[1], 'state', 'finished')
end
return removed
