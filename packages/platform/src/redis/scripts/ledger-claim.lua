--[[
  A tool worker claims an idempotency key before any side effect. The entry is a hash: `state`
  (`running` -> `done`), `token` (the claimer: the command id), `digest` (what the command does),
  `tool`, `claimedAt`, `attempts`, `holder` (the delivery running it) and `leaseUntil` (ms, Redis
  clock: until when that delivery is known to be alive), and once done `result` (the ToolResult
  JSON) and `completedAt`. Replies: `{'claimed'}` (new entry), `{'resumed', attempts}` (the same
  token was running and its lease has lapsed, or is this holder's: a redelivery after a crash, or
  a retry after a lost reply; the lease is taken over), `{'running', holder, leaseUntil}` (the same
  token runs under another holder's live lease: deliver it again later), `{'done', result, token}`
  (replay it), `{'conflict', token}` (another digest under this key), `{'busy', token}` (another
  command runs).

  The lease is read and written on Redis's clock (TIME), so the workers' clocks never matter; an
  entry without `leaseUntil` has a lapsed lease.

  KEYS[1] the ledger entry
  ARGV[1] token
  ARGV[2] digest
  ARGV[3] tool
  ARGV[4] claimedAt
  ARGV[5] TTL, seconds
  ARGV[6] holder
  ARGV[7] lease length, ms
]]
local found = redis.call('HMGET', KEYS[1], 'state', 'token', 'digest', 'result', 'holder',
  'leaseUntil')
local state, token, digest, result = found[1], found[2], found[3], found[4]
local holder, leaseUntil = found[5], tonumber(found[6] or '0') or 0
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local leaseEnd = string.format('%.0f', now + tonumber(ARGV[7]))
if not state then
  redis.call('HSET', KEYS[1], 'state', 'running', 'token', ARGV[1], 'digest', ARGV[2],
    'tool', ARGV[3], 'claimedAt', ARGV[4], 'attempts', 1, 'holder', ARGV[6],
    'leaseUntil', leaseEnd)
  redis.call('EXPIRE', KEYS[1], ARGV[5])
  return {'claimed'}
end
if digest ~= ARGV[2] then return {'conflict', token or ''} end
if state == 'done' and result then return {'done', result, token or ''} end
if token == ARGV[1] then
  if holder and holder ~= ARGV[6] and leaseUntil > now then
    return {'running', holder, string.format('%.0f', leaseUntil)}
  end
  redis.call('HSET', KEYS[1], 'holder', ARGV[6], 'leaseUntil', leaseEnd)
  return {'resumed', redis.call('HINCRBY', KEYS[1], 'attempts', 1)}
end
return {'busy', token or ''}
