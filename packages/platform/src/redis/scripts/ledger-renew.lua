--[[
  Renews the lease of a delivery that is running a tool handler (see ledger-claim.lua): while the
  entry is `running` and this delivery still holds it, `leaseUntil` moves to now + the lease
  length (Redis clock). Replies `{'renewed', leaseUntil}`, or `{'lost', holder}` when the entry is
  done, gone, or held by another delivery: this one was paused past its lease and another took the
  command over, so it must stop.

  KEYS[1] the ledger entry
  ARGV[1] token
  ARGV[2] holder
  ARGV[3] lease length, ms
]]
local found = redis.call('HMGET', KEYS[1], 'state', 'token', 'holder')
if found[1] ~= 'running' or found[2] ~= ARGV[1] or found[3] ~= ARGV[2] then
  return {'lost', found[3] or ''}
end
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local leaseEnd = string.format('%.0f', now + tonumber(ARGV[3]))
redis.call('HSET', KEYS[1], 'leaseUntil', leaseEnd)
return {'renewed', leaseEnd}
