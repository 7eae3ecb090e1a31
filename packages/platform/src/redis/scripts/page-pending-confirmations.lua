--[[
  One window of a tenant's waiting confirmations, in index order (expiry, then confirmationId
  byte by byte, as Redis orders a sorted set), starting right after a position and past the
  expired ones. The position need not be in the index any more (taken, swept): its place is found
  from its score and id, by a binary search among the entries of the same score, so that entries
  that share an expiry are neither repeated nor skipped, however many there are.

  KEYS[1] the tenant's index
  ARGV[1] after: expiry (ms), or '' for the start
  ARGV[2] after: confirmationId
  ARGV[3] expired up to (ms, inclusive): entries scored at or below are skipped
  ARGV[4] window size
  Returns {more (1 when entries remain past the window), id, score, id, score, ...}
]]
local index = KEYS[1]

--- @include "includes/member-order"

local start = redis.call('ZCOUNT', index, '-inf', ARGV[3])
if ARGV[1] ~= '' then
  local lo = redis.call('ZCOUNT', index, '-inf', '(' .. ARGV[1])
  local hi = redis.call('ZCOUNT', index, '-inf', ARGV[1])
  while lo < hi do
    local mid = math.floor((lo + hi) / 2)
    local member = redis.call('ZRANGE', index, mid, mid)[1]
    if sorts_after(member, ARGV[2]) then hi = mid else lo = mid + 1 end
  end
  if lo > start then start = lo end
end
local size = tonumber(ARGV[4])
local window = redis.call('ZRANGE', index, start, start + size - 1, 'WITHSCORES')
local more = 0
if start + size < redis.call('ZCARD', index) then more = 1 end
table.insert(window, 1, more)
return window
