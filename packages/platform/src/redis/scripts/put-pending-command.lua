--[[
  Stores a pending command (a hash: `json`, `takenBy` once a result took it, `swept` once the
  deadline sweeper claimed it) and indexes its deadline together, so a crash cannot leave a
  command the deadline sweeper never sees. Replaces any earlier state of the same command.

  KEYS[1] the pending command
  KEYS[2] the deadline index
  ARGV[1] JSON
  ARGV[2] TTL, seconds
  ARGV[3] deadline, ms since the epoch
  ARGV[4] commandId
]]
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'json', ARGV[1])
redis.call('EXPIRE', KEYS[1], ARGV[2])
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[4])
return 1
