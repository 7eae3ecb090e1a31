--[[
  Compare-and-set of an object: writes the next version only if the stored version is the
  expected one. Returns 1 written, 0 version mismatch, -1 no such object.

  KEYS[1] the object
  ARGV[1] expected version
  ARGV[2] next version
  ARGV[3] next JSON
]]
local v = redis.call('HGET', KEYS[1], 'v')
if not v then return -1 end
if v ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'v', ARGV[2], 'doc', ARGV[3])
return 1
