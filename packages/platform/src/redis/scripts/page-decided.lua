--[[
  One window of a tenant's history, newest first (decision time, then confirmationId byte by byte,
  both descending), starting right after a position. The position need not be indexed any more
  (dropped past the cap or the TTL), and entries decided in the same millisecond are neither
  repeated nor skipped (see includes/rank-of-position.lua).

  KEYS[1] the tenant's history index
  ARGV[1] after: decided at (ms), or '' for the newest
  ARGV[2] after: confirmationId
  ARGV[3] window size
  Returns {more (1 when older entries remain past the window), id, score, id, score, ...}
]]
--- @include "includes/rank-of-position"
local index = KEYS[1]

-- The entries before the position in index order (ascending) are ranks 0 to stop - 1.
local stop = redis.call('ZCARD', index)
if ARGV[1] ~= '' then stop = rank_of_position(index, ARGV[1], ARGV[2], false) end
local start = stop - tonumber(ARGV[3])
if start < 0 then start = 0 end
local out = {0}
if start > 0 then out[1] = 1 end
if stop > 0 then
  local window = redis.call('ZRANGE', index, start, stop - 1, 'WITHSCORES')
  for i = #window - 1, 1, -2 do
    out[#out + 1] = window[i]
    out[#out + 1] = window[i + 1]
  end
end
return out
