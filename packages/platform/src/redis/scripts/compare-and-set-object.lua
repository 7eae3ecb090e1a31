--[[
  Compare-and-set of an object: writes the next version only if the stored version is the
  expected one. Returns 1 written, 0 version mismatch, -1 no such object. A write made for a
  command is appended to the tenant's effect log in the same call, so the log holds exactly the
  writes that happened: none that failed, none twice.

  KEYS[1] the object
  KEYS[2] the tenant's effect log (a stream, in the object's slot)
  ARGV[1] expected version
  ARGV[2] next version
  ARGV[3] next JSON
  ARGV[4] the effect entry's JSON, or '' for a write made for no command (nothing logged)
  ARGV[5] most entries the log keeps (approximately: older ones are trimmed)
  ARGV[6] TTL of the log after its last entry, seconds
]]
local v = redis.call('HGET', KEYS[1], 'v')
if not v then return -1 end
if v ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'v', ARGV[2], 'doc', ARGV[3])
if ARGV[4] ~= '' then
  redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[5], '*', 'e', ARGV[4])
  redis.call('EXPIRE', KEYS[2], ARGV[6])
end
return 1
