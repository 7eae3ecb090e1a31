--[[
  Counts one call, in one round trip: adds `token` to the run's set (so a redelivered message is
  not counted twice: a run over its limit is a final denial) and, only when the token is new
  there, increments the tenant's per-second counter; a redelivery reads that counter instead (at
  least 1: the call itself), so a chunk handled again after a fault does not use up the tenant's
  rate. The set keeps at most `keep` tokens, so a run that goes on calling past its limit does
  not grow it for a day: past them a new token is counted in the run's overflow counter, not told
  apart (a redelivered one is counted again there and in the rate; the run is over its limit
  already). Returns {calls in run, tenant calls this second}.

  KEYS[1] the run's set
  KEYS[2] the tenant's rate counter
  KEYS[3] the run's overflow counter
  ARGV[1] call token
  ARGV[2] run TTL, seconds
  ARGV[3] rate TTL, seconds
  ARGV[4] keep
]]
local inRun = redis.call('SCARD', KEYS[1])
local new = redis.call('SISMEMBER', KEYS[1], ARGV[1]) == 0
if new then
  if inRun < tonumber(ARGV[4]) then
    inRun = inRun + redis.call('SADD', KEYS[1], ARGV[1])
  else
    redis.call('INCR', KEYS[3])
  end
end
redis.call('EXPIRE', KEYS[1], ARGV[2])
redis.call('EXPIRE', KEYS[3], ARGV[2])
local rate
if new then
  rate = redis.call('INCR', KEYS[2])
  redis.call('EXPIRE', KEYS[2], ARGV[3])
else
  rate = math.max(tonumber(redis.call('GET', KEYS[2]) or '0'), 1)
end
return {inRun + tonumber(redis.call('GET', KEYS[3]) or '0'), rate}
