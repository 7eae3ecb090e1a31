--[[
  Where a position (score, id) falls in a sorted set, members of one score ordered byte by byte:
  found from the score and the id by a binary search among the members of that score, so the
  position need not be a member any more, and members that share a score are neither repeated
  nor skipped by a page that resumes there, however many there are.
]]
--- @include "member-order"

-- How many members of `index` sort before (score, id); with `inclusive`, the member at the
-- position itself (when still there) counts too. Ranks in ascending order, as ZRANGE takes them.
local function rank_of_position(index, score, id, inclusive)
  local lo = redis.call('ZCOUNT', index, '-inf', '(' .. score)
  local hi = redis.call('ZCOUNT', index, '-inf', score)
  while lo < hi do
    local mid = math.floor((lo + hi) / 2)
    local member = redis.call('ZRANGE', index, mid, mid)[1]
    local before
    if inclusive then before = not sorts_after(member, id) else before = sorts_after(id, member) end
    if before then lo = mid + 1 else hi = mid end
  end
  return lo
end
