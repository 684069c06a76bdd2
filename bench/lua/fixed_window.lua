-- Fixed-window counter, written the way a careful user writes it today.
-- KEYS[1] = counter key, ARGV[1] = window in ms, ARGV[2] = limit.
-- Returns {allowed (1/0), limit, remaining}.
--  * atomic: check and increment in one script (no GET/SET race);
--  * INCR and PEXPIRE in the same script, so no "dead counter" without a TTL;
--  * a rejected call records nothing (the counter never goes above the limit);
--  * the window starts at the first accepted call and ends with the key's TTL.
local key = KEYS[1]
local window = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])

local count = tonumber(redis.call('GET', key) or '0')
if count + 1 > limit then
  return {0, limit, 0}
end
count = redis.call('INCR', key)
if count == 1 then
  redis.call('PEXPIRE', key, window)
end
return {1, limit, limit - count}
