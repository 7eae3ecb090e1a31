--[[
  Writes an object only if it is absent (a hash: `v` version, `doc` JSON). Returns 1 when
  written.

  KEYS[1] the object
  ARGV[1] version
  ARGV[2] JSON
]]
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'v', ARGV[1], 'doc', ARGV[2])
return 1
