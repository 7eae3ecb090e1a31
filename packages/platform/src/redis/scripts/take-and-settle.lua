--[[
  Takes a pending command and settles its idempotency record in one step, for a result whose
  pending command the caller already holds a copy of (execute issued it, or read it just before)
  and checked the result against: only when Redis holds exactly that copy. Replies `{0}` when the
  command is gone or another taker has it (nothing done), `{2}` when Redis holds another JSON
  (nothing done: take it and settle apart), `{3}` when the record is not one the gate wrote
  (nothing done: the command keeps its deadline, so the sweeper still ends the call),
  `{1, settled, previous}` when this taker has it, `settled` and `previous` as settle-record.lua
  answers.

  KEYS[1] the pending command
  KEYS[2] the deadline index
  KEYS[3] the record
  ARGV[1] commandId
  ARGV[2] taker token
  ARGV[3] linger, ms
  ARGV[4] expected pending JSON
  ARGV[5] claim token
  ARGV[6] next record JSON (with settledBy)
  ARGV[7] record TTL, seconds
  ARGV[8] settler token
]]
--- @include "includes/take"
--- @include "includes/settle"
--- @include "includes/readable"

if not readable(KEYS[3]) then return {3} end
local json = take(KEYS[1], KEYS[2], ARGV[1], ARGV[2], ARGV[3], ARGV[4])
if not json then return {0} end
if json ~= ARGV[4] then return {2} end
local settled = settle(KEYS[3], ARGV[5], ARGV[6], ARGV[7], ARGV[8])
return {1, settled[1], settled[2]}
