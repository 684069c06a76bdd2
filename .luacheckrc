-- luacheck's settings for lua/winlimit.lua (make lint): Lua 5.1 as Redis runs it, with the
-- globals Redis gives a library or a script and nothing else.
std = "lua51"
globals = {}
read_globals = {
  "redis",   -- the server's API (redis.call, redis.register_function, ...)
  "KEYS",    -- a script's keys (Redis 6.x, EVALSHA)
  "ARGV",    -- a script's arguments
}
max_line_length = 140
