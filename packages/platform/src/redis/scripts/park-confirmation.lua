--[[
  Parks a confirmation once and indexes it by tenant and by expiry in the same step. The hash
  holds `json`, `state` and `parkedBy`; `state` goes `waiting` -> `taken` (an approval, with
  `takenBy`) or `swept` (the expiry sweeper) -> `finished`. A hash in any state blocks parking
  again, so a redelivered message can never revive a decided confirmation. Returns
  `{'publish', JSON}`: the new JSON when parked, the stored one when the same parker (the same
  message, delivered again) parked it and it still waits; otherwise `{'standing', stored JSON}`
  (another message parked it, or it was decided), read in the same step so that the caller can
  tell a duplicate from another call under the same id even if the confirmation expires right
  after.

  KEYS[1] the confirmation
  KEYS[2] the tenant's index
  KEYS[3] the expiry index
  ARGV[1] JSON
  ARGV[2] PX, ms
  ARGV[3] expiry, ms since the epoch
  ARGV[4] confirmationId
  ARGV[5] expiry index member
  ARGV[6] parker token
]]
if redis.call('EXISTS', KEYS[1]) == 1 then
  local found = redis.call('HMGET', KEYS[1], 'json', 'state', 'parkedBy')
  if found[2] == 'waiting' and found[3] == ARGV[6] then return {'publish', found[1]} end
  return {'standing', found[1]}
end
redis.call('HSET', KEYS[1], 'json', ARGV[1], 'state', 'waiting', 'parkedBy', ARGV[6])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[4])
redis.call('ZADD', KEYS[3], ARGV[3], ARGV[5])
return {'publish', ARGV[1]}
