--[[
  Ends a swept command: leaves the deadline index; the pending hash is deleted, or kept `retain`
  ms so that a late result can still be matched to its tenant and key. One a result took
  meanwhile is kept `retain` ms or its taker's `linger` ms, whichever is longer. Returns 1 when
  the command was still indexed.

  KEYS[1] the pending command
  KEYS[2] the deadline index
  ARGV[1] commandId
  ARGV[2] retain, ms
  ARGV[3] the longer of retain and linger, ms
]]
local removed = redis.call('ZREM', KEYS[2], ARGV[1])
if redis.call('HEXISTS', KEYS[1], 'takenBy') == 1 then
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
  return removed
end
if tonumber(ARGV[2]) > 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
else
  redis.call('DEL', KEYS[1])
end
return removed
