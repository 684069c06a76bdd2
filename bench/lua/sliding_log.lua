-- Exact sliding-window log in a sorted set, written the way a careful user
-- writes it today (ZREMRANGEBYSCORE + ZCARD + ZADD + PEXPIRE in one script).
-- KEYS[1] = log key, ARGV[1] = window in ms, ARGV[2] = limit.
-- Returns {allowed (1/0), limit, remaining}.
--  * server time from TIME (not the client's clock);
--  * an entry at t counts while now - t < window, so entries with
--    score <= now - window are removed (the seed posts' '>' is off by one);
--  * unique members: the server's microsecond time, bumped until ZADD NX
--    succeeds, so two calls in the same microsecond never overwrite each other;
--  * a rejected call records nothing;
--  * PEXPIRE on every accepted call, so an idle key vanishes after one window.
local key = KEYS[1]
local window = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])

local t = redis.call('TIME')
local now_us = tonumber(t[1]) * 1000000 + tonumber(t[2])
local now_ms = math.floor(now_us / 1000)

redis.call('ZREMRANGEBYSCORE', key, '-inf', now_ms - window)
local count = redis.call('ZCARD', key)
if count + 1 > limit then
  return {0, limit, 0}
end
local member = now_us
while redis.call('ZADD', key, 'NX', now_ms, string.format('%.0f', member)) == 0 do
  member = member + 1
end
redis.call('PEXPIRE', key, window)
return {1, limit, limit - count - 1}
