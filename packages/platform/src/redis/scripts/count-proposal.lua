--[[
  Counts one authenticated proposal where it enters the gate, in one round trip: in its run, in
  its user's and its tenant's second (the second the record reached the broker), and in its
  repair chain, which it charges, resets or keeps. Returns {calls in run, user calls this second,
  tenant calls this second, repairs charged to the chain before it}.

  The run's hash remembers each proposal's answer under its token (the record's coordinates), so
  a record delivered again (after a crash, a rebalance) gets the very answer it got the first
  time and is counted nowhere again. It remembers at most `keep` proposals, so a run that goes on
  calling past its limit does not grow it for a day: past them a proposal is counted in the run's
  overflow counter and not told apart (one delivered again is counted again; the run is over its
  limit already).

  A second's count is a field of its minute's hash, kept until `rate expiry` (an absolute time
  past which no record of that minute can still be read from the topic), so a backlog read late
  is counted in the second it was sent, and memory is one small hash per tenant and per user per
  minute they called.

  KEYS[1] the run's hash of answers, by token
  KEYS[2] the run's overflow counter
  KEYS[3] the tenant's minute hash (field: second)
  KEYS[4] the user's minute hash (field: second)
  KEYS[5] the run's repair chains (field: chain, value: repairs charged)
  ARGV[1] token
  ARGV[2] run TTL, seconds
  ARGV[3] second (field of the minute hashes)
  ARGV[4] rate expiry, seconds since the epoch
  ARGV[5] keep
  ARGV[6] chain field
  ARGV[7] chain step: charge, reset or keep
  ARGV[8] the unknown-tool chain's field, also reset by an accepted call
]]
local stored = redis.call('HGET', KEYS[1], ARGV[1])
if stored then
  local answer = {}
  for n in string.gmatch(stored, '%d+') do answer[#answer + 1] = tonumber(n) end
  return answer
end
local inRun = redis.call('HLEN', KEYS[1])
local remembered = inRun < tonumber(ARGV[5])
if remembered then
  inRun = inRun + 1
else
  redis.call('INCR', KEYS[2])
end
local calls = inRun + tonumber(redis.call('GET', KEYS[2]) or '0')
local tenant = redis.call('HINCRBY', KEYS[3], ARGV[3], 1)
redis.call('EXPIREAT', KEYS[3], ARGV[4])
local user = redis.call('HINCRBY', KEYS[4], ARGV[3], 1)
redis.call('EXPIREAT', KEYS[4], ARGV[4])
local repairs = tonumber(redis.call('HGET', KEYS[5], ARGV[6]) or '0')
if ARGV[7] == 'charge' then
  redis.call('HINCRBY', KEYS[5], ARGV[6], 1)
elseif ARGV[7] == 'reset' then
  redis.call('HDEL', KEYS[5], ARGV[6], ARGV[8])
end
local answer = {calls, user, tenant, repairs}
if remembered then
  redis.call('HSET', KEYS[1], ARGV[1], table.concat(answer, ' '))
end
redis.call('EXPIRE', KEYS[1], ARGV[2])
redis.call('EXPIRE', KEYS[2], ARGV[2])
redis.call('EXPIRE', KEYS[5], ARGV[2])
return answer
