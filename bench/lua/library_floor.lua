#!lua name=winlimit_floor
-- The floor under the library's common calls (`make bench-instr`, FLOOR_*): a Functions
-- library making the same redis.call sequence as lua/winlimit.lua's plain paths on a live key
-- and nothing else (no parsing, no checks, a constant reply of the same shape). What the
-- library costs above it is its own Lua work.
-- FCALL floor_<slide|fixed|gcra> 1 <key> <window_ms> <limit>

-- SLIDE: TIME, PEXPIRETIME, ZCARD, the newest entry, the stale count, ZADD NX; PEXPIREAT only
-- as often as the library's slack rule writes it (when the expiry is below the window's end).
redis.register_function('floor_slide', function(keys, args)
  local key, w = keys[1], tonumber(args[1])
  local t = redis.call('TIME')
  local now = t[1] * 1000 + math.floor(t[2] / 1000)
  local raw = redis.call('PEXPIRETIME', key)
  redis.call('ZCARD', key)
  redis.call('ZRANGE', key, '-1', '-1', 'WITHSCORES')
  redis.call('ZCOUNT', key, '-inf', now - w)
  redis.call('ZADD', key, 'NX', now, t[1] .. t[2])
  if raw < now + w then redis.call('PEXPIREAT', key, now + w + 60000) end
  return { 1, 10000, 9999, 0, w }
end)

-- FIXED: GET, PTTL, INCR (SET ... PX on a missing key).
redis.register_function('floor_fixed', function(keys, args)
  local key = keys[1]
  local value = redis.call('GET', key)
  local left = redis.call('PTTL', key)
  if value then redis.call('INCR', key) else redis.call('SET', key, '1', 'PX', args[1]) end
  return { 1, 1000000000, 999999999, 0, left }
end)

-- GCRA: GET, TIME, SET ... PXAT.
redis.register_function('floor_gcra', function(keys, args)
  local key = keys[1]
  redis.call('GET', key)
  local t = redis.call('TIME')
  local at = t[1] * 1000 + math.floor(t[2] / 1000) + 60000
  redis.call('SET', key, 'gcra:' .. at .. ':0:100', 'PXAT', at)
  return { 1, 100, 99, 0, 60000 }
end)
