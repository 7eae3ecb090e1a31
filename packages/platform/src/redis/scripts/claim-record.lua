--[[
  Claims an idempotency key (SET NX), on a Redis Cluster where the record and the pending command
  live in different slots: the pending command is stored after a won claim, by
  put-pending-command.lua. A lost claim answers the record that holds the key. Returns {1} or
  {0, record}.

  KEYS[1] the record
  ARGV[1] record JSON
  ARGV[2] record TTL, seconds
]]
if redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2], 'NX') then return {1} end
return {0, redis.call('GET', KEYS[1])}
