--[[
  Replaces the idempotency record at `key` only while it is still `claimed` under `claimToken`, so
  that a result and the deadline sweeper cannot both settle one command. The written record
  carries `settledBy`, the settler's own token: the same settler asking again (a retry after a
  lost reply, or its message redelivered) is told it settled, so it publishes the terminal outcome
  it owes. Returns `{1, previous}` when settled by this settler, `{0, previous}` (or `{0}`)
  otherwise.
]]
local function settle(key, claimToken, json, ttl, settler)
  local current = redis.call('GET', key)
  if not current then return {0} end
  local ok, record = pcall(cjson.decode, current)
  if not ok or type(record) ~= 'table' then return {0, current} end
  if record.state == 'claimed' and record.token == claimToken then
    redis.call('SET', key, json, 'EX', ttl)
    return {1, current}
  end
  if record.settledBy == settler then return {1, current} end
  return {0, current}
end
