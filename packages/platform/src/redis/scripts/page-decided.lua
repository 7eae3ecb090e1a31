--[[
  One window of a tenant's history, newest first (decision time, then confirmationId byte by byte,
  both descending), starting right after a position. The position need not be indexed any more
  (dropped past the cap or the TTL): its place is found from its score and id, by a binary search
  among the entries of the same score, so that entries decided in the same millisecond are
  neither repeated nor skipped.

  KEYS[1] the tenant's history index
  ARGV[1] after: decided at (ms), or '' for the newest
  ARGV[2] after: confirmationId
  ARGV[3] window size
  Returns {more (1 when older entries remain past the window), id, score, id, score, ...}
]]
--- @include "includes/member-order"
local index = KEYS[1]

-- The entries before the position in index order (ascending) are ranks 0 to stop - 1.
local stop = redis.call('ZCARD', index)
if ARGV[1] ~= '' then
  local lo = redis.call('ZCOUNT', index, '-inf', '(' .. ARGV[1])
  local hi = redis.call('ZCOUNT', index, '-inf', ARGV[1])
  while lo < hi do
    local mid = math.floor((lo + hi) / 2)
    local member = redis.call('ZRANGE', index, mid, mid)[1]
    if sorts_after(ARGV[2], member) then lo = mid + 1 else hi = mid end
  end
  stop = lo
end
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
