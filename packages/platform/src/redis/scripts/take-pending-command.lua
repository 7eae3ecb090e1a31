--[[
  Takes a pending command for a result (see includes/take.lua).

  KEYS[1] the pending command
  KEYS[2] the deadline index
  ARGV[1] commandId
  ARGV[2] taker token
  ARGV[3] linger, ms
  ARGV[4] optional: the expected pending JSON; another stored JSON is answered without a take
]]
--- @include "includes/take"
return take(KEYS[1], KEYS[2], ARGV[1], ARGV[2], ARGV[3], ARGV[4])
