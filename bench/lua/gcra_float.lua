-- GCRA in float seconds, in the form go-redis/redis_rate uses (written for the bench): the
-- server's TIME as seconds since 2017 in a double, GET the TAT, SET it back with EX.
-- KEYS[1] = key, ARGV = burst, rate (units per period), period in seconds, cost.
-- Returns {allowed, remaining, retry_after_s, reset_after_s} (the times as text).
if redis.replicate_commands then redis.replicate_commands() end
local key = KEYS[1]
local burst, rate, period, cost = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])

local interval = period / rate
local t = redis.call('TIME')
local now = (t[1] - 1483228800) + t[2] / 1000000
local tat = tonumber(redis.call('GET', key) or now)
if tat < now then tat = now end

local new_tat = tat + interval * cost
local diff = now - (new_tat - interval * burst)
if diff < 0 then
  return {0, 0, tostring(-diff), tostring(tat - now)}
end
local reset_after = new_tat - now
if reset_after > 0 then
  redis.call('SET', key, new_tat, 'EX', math.ceil(reset_after))
end
return {1, math.floor(diff / interval), '-1', tostring(reset_after)}
