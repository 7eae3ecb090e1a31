--[[
  A tool worker claims an idempotency key before any side effect. The entry is a hash: `state`
  (`running` -> `done`), `token` (the claimer: the command id), `digest` (what the command does),
  `tool`, `claimedAt`, `attempts`, and once done `result` (the ToolResult JSON) and
  `completedAt`. Replies: `{'claimed'}` (new entry), `{'resumed', attempts}` (the same token was
  running: a redelivery after a crash, or a retry after a lost reply), `{'done', result, token}`
  (replay it), `{'conflict', token}` (another digest under this key), `{'busy', token}` (another
  command runs).

  KEYS[1] the ledger entry
  ARGV[1] token
  ARGV[2] digest
  ARGV[3] tool
  ARGV[4] claimedAt
  ARGV[5] TTL, seconds
]]
local found = redis.call('HMGET', KEYS[1], 'state', 'token', 'digest', 'result')
local state, token, digest, result = found[1], found[2], found[3], found[4]
if not state then
  redis.call('HSET', KEYS[1], 'state', 'running', 'token', ARGV[1], 'digest', ARGV[2],
    'tool', ARGV[3], 'claimedAt', ARGV[4], 'attempts', 1)
  redis.call('EXPIRE', KEYS[1], ARGV[5])
  return {'claimed'}
end
if digest ~= ARGV[2] then return {'conflict', token or ''} end
if state == 'done' and result then return {'done', result, token or ''} end
if token == ARGV[1] then
  return {'resumed', redis.call('HINCRBY', KEYS[1], 'attempts', 1)}
end
return {'busy', token or ''}
