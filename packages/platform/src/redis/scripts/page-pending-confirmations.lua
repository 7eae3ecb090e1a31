--[[
  One window of a tenant's waiting confirmations, in index order (expiry, then confirmationId
  byte by byte, as Redis orders a sorted set), starting right after a position and past the
  expired ones. The position need not be in the index any more (taken, swept), and entries that
  share an expiry are neither repeated nor skipped (see includes/rank-of-position.lua).

  KEYS[1] the tenant's index
  ARGV[1] after: expiry (ms), or '' for the start
  ARGV[2] after: confirmationId
  ARGV[3] expired up to (ms, inclusive): entries scored at or below are skipped
  ARGV[4] window size
  Returns {more (1 when entries remain past the window), id, score, id, score, ...}
]]
local index = KEYS[1]

--- @include "includes/rank-of-position"

local start = redis.call('ZCOUNT', index, '-inf', ARGV[3])
if ARGV[1] ~= '' then
  local past = rank_of_position(index, ARGV[1], ARGV[2], true)
  if past > start then start = past end
end
local size = tonumber(ARGV[4])
local window = redis.call('ZRANGE', index, start, start + size - 1, 'WITHSCORES')
local more = 0
if start + size < redis.call('ZCARD', index) then more = 1 end
table.insert(window, 1, more)
return window
