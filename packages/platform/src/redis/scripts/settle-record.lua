--[[
  Settles an idempotency record (see includes/settle.lua).

  KEYS[1] the record
  ARGV[1] claim token
  ARGV[2] next record JSON (with settledBy)
  ARGV[3] TTL, seconds
  ARGV[4] settler token
]]
--- @include "includes/settle"
return settle(KEYS[1], ARGV[1], ARGV[2], ARGV[3], ARGV[4])
