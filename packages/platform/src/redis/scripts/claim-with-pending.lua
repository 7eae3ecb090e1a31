--[[
  Claims an idempotency key (SET NX) and, only when the claim is won, stores the pending command
  and indexes its deadline as put-pending-command.lua does: one round trip for a fresh call, and
  no moment where a claim exists without its pending command. A lost claim answers the record
  that holds the key. Returns {1} or {0, record}.

  KEYS[1] the record
  KEYS[2] the pending command
  KEYS[3] the deadline index
  ARGV[1] record JSON
  ARGV[2] record TTL, seconds
  ARGV[3] pending JSON
  ARGV[4] pending TTL, seconds
  ARGV[5] deadline, ms since the epoch
  ARGV[6] commandId
]]
if redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2], 'NX') then
  redis.call('DEL', KEYS[2])
  redis.call('HSET', KEYS[2], 'json', ARGV[3])
  redis.call('EXPIRE', KEYS[2], ARGV[4])
  redis.call('ZADD', KEYS[3], ARGV[5], ARGV[6])
  return {1}
end
return {0, redis.call('GET', KEYS[1])}
