--[[
  Records a tool worker's result under its claim, once: the first result stays. Replies
  `{'recorded', json}` when this call wrote it, `{'kept', json}` when a result was there already
  (a repeat, or a concurrent delivery of the same command that finished first: publish that one),
  `{'foreign', token}` when another command holds the claim (nothing written). An entry that has
  vanished is written whole.

  KEYS[1] the ledger entry
  ARGV[1] token
  ARGV[2] digest
  ARGV[3] tool
  ARGV[4] result JSON
  ARGV[5] completedAt
  ARGV[6] TTL, seconds
  ARGV[7] claimedAt
]]
local found = redis.call('HMGET', KEYS[1], 'state', 'token', 'result')
if found[1] == 'done' and found[3] then return {'kept', found[3]} end
if found[1] and found[2] ~= ARGV[1] then return {'foreign', found[2] or ''} end
redis.call('HSET', KEYS[1], 'state', 'done', 'token', ARGV[1], 'digest', ARGV[2], 'tool', ARGV[3],
  'result', ARGV[4], 'completedAt', ARGV[5])
redis.call('HSETNX', KEYS[1], 'claimedAt', ARGV[7])
redis.call('HSETNX', KEYS[1], 'attempts', 1)
redis.call('EXPIRE', KEYS[1], ARGV[6])
return {'recorded', ARGV[4]}
