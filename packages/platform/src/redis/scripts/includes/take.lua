--[[
  Takes a pending command for a result. The first taker marks it with its token and removes the
  deadline, unless the deadline sweeper has claimed the command: that entry stays for the sweeper
  to finish (see claim-expired-commands.lua). The same token gets the JSON again, any other gets
  false. The taken hash lingers `linger` ms for such retries; a swept one keeps a longer TTL,
  because the sweep that may owe its terminal observation has not finished it (or kept it
  `retain` ms for this very result), and finish-expired-command.lua sets it then. With
  `expected`, a stored JSON that differs is answered without being taken.
]]
local function take(pending, deadlines, commandId, taker, linger, expected)
  local found = redis.call('HMGET', pending, 'json', 'takenBy', 'swept')
  local json, by = found[1], found[2]
  if not json then return false end
  if by then
    if by == taker then return json end
    return false
  end
  if expected and json ~= expected then return json end
  redis.call('HSET', pending, 'takenBy', taker)
  if not found[3] then
    redis.call('PEXPIRE', pending, linger)
    redis.call('ZREM', deadlines, commandId)
  elseif redis.call('PTTL', pending) < tonumber(linger) then
    redis.call('PEXPIRE', pending, linger)
  end
  return json
end
