--[[
  Whether the idempotency record at `key` is absent or has the shape the gate writes (the store
  decodes it the same way), so that a step that must settle it can refuse before it changes
  anything: Redis keeps a script's earlier writes when a later step fails. STATES are the
  idempotency states of @toolgate/shared (IDEMPOTENCY_STATES); a unit test keeps them equal.
]]
local STATES = {['claimed'] = true, ['done'] = true, ['unknown'] = true}
local function readable(key)
  local current = redis.call('GET', key)
  if not current then return true end
  local ok, record = pcall(cjson.decode, current)
  return ok and type(record) == 'table' and type(record.digest) == 'string'
    and type(record.token) == 'string' and STATES[record.state] == true
end
