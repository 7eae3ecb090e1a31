--[[
  The order of members within one score of a sorted set: byte by byte, a prefix first.
]]
-- True when member `a` sorts after `b` in a sorted set.
local function sorts_after(a, b)
  local n = math.min(#a, #b)
  for i = 1, n do
    local x, y = string.byte(a, i), string.byte(b, i)
    if x ~= y then return x > y end
  end
  return #a > #b
end
