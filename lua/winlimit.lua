#!lua name=winlimit
-- winlimit without the module: WINLIMIT.SLIDE, WINLIMIT.FIXED and WINLIMIT.GCRA (and their
-- _RO forms) as a Redis Functions library (Redis 7.0+, Valkey). The same answers, errors,
-- stored state and expiries as the module (src/core/*.rs is the reference), so a key can be
-- served by either in turn.
--
--   FCALL winlimit_slide 1 <key> <WINLIMIT.SLIDE's arguments after the key>
--   FCALL_RO winlimit_gcra_ro 1 <key> <period_ms> <limit> ...
--   FCALL winlimit_version 0
--
-- `make` also builds target/lua/winlimit-script.lua from this file for Redis 6.x (no
-- Functions): the same code without the first line, run as
--   EVALSHA <sha> 1 <key> <function_name> <args...>
--
-- Lua numbers are doubles. Every integer the library computes is checked to stay below 2^53,
-- where doubles are exact; a call that would need more gets the range error below, never a
-- different number. Integers are formatted with %d (tostring writes 1.8e+12).

local VERSION = '0.4.0'

-- Doubles hold every integer of magnitude below this exactly.
local EXACT = 9007199254740992 -- 2^53
local MAX_WINDOW_MS = 1000000000000
local NEVER = -1

-- Redis 7.0 runs a library's top level without math (and more): these are bound on the
-- first call (`bind_globals`), where every library is there. A Function reaches a global
-- through its globals' metatable, at some hundred instructions a time: the common paths use
-- these upvalues instead.
local floor, ceil, min, max, byte, char, sub, find, format, match, HAS_EXPIRETIME
local rcall, rpcall, type_of, protected

-- Errors ------------------------------------------------------------------------------------

-- Raised as a table, so the entry point replies the text as it is (no " script: ..." suffix).
local function fail(text)
  error({ winlimit_error = text }, 0)
end

local function fmt(n)
  return format('%d', n)
end

local function range_error(name, lo, hi)
  fail('ERR ' .. name .. ' must be an integer between ' .. fmt(lo) .. ' and ' .. fmt(hi))
end

-- A value beyond what doubles hold exactly: refused, never answered with another number.
local function beyond(what)
  fail('ERR ' .. what .. ' is beyond the exact range of the winlimit library (integers up to 2^53); '
    .. 'the winlimit module serves it')
end

local function exact(x, what)
  if x >= EXACT or x <= -EXACT then
    beyond(what)
  end
  return x
end

-- Integers ----------------------------------------------------------------------------------

-- A decimal integer as the module (and Redis's string2ll) takes it: `0`, or an optional `-`
-- and digits without a leading zero, within i64. Returns a double, exact below 2^53 and only
-- compared beyond it; nil when it is not one.
local function parse_int(s)
  -- Mostly: up to 15 digits without a leading zero, far below 2^53, read by arithmetic (as
  -- tonumber reads them, cheaper); the pattern leaves out what tonumber alone takes (0x10,
  -- 1e3, " 12", 007, -0).
  if #s < 16 and find(s, '^%-?[1-9]%d*$') then
    return s + 0
  end
  -- Else tonumber, where the text is the number's own decimal form.
  local n = tonumber(s)
  if n ~= nil and n > -EXACT and n < EXACT and format('%d', n) == s then
    return n
  end
  if not s:find('^%-?[1-9]%d*$') then
    return nil
  end
  local negative = byte(s, 1) == 45
  local digits = negative and sub(s, 2) or s
  if #digits > 19 or (#digits == 19 and digits > (negative and '9223372036854775808' or '9223372036854775807')) then
    return nil
  end
  return tonumber(s)
end

local arg_int
do
  -- Arguments repeat from call to call (the same window and limit): their integers are kept
  -- (a library's state outlives a call; a script's does not, and gains nothing), at most
  -- ARG_CACHE_SIZE short ones, so odd arguments cannot grow it without bound.
  local ARG_CACHE_SIZE = 256
  local arg_cache, arg_cache_len = {}, 0

  function arg_int(s)
    if #s > 20 then -- longer than any i64: not kept (nor held from the garbage collector)
      return parse_int(s)
    end
    local n = arg_cache[s]
    if n ~= nil then
      return n or nil
    end
    n = parse_int(s)
    if arg_cache_len >= ARG_CACHE_SIZE then
      arg_cache, arg_cache_len = {}, 0
    end
    arg_cache[s], arg_cache_len = n or false, arg_cache_len + 1
    return n
  end
end

local function looks_like_integer(s)
  return s:find('^%-?%d+$') ~= nil
end

-- x / d rounded down, for |x| < 2^53 and d > 0: exact (the double quotient never rounds up
-- to the next integer there).
local function idiv(x, d)
  return floor(x / d)
end

-- x / d rounded towards zero, as Rust's `/`.
local function tdiv(x, d)
  local q = x / d
  return q >= 0 and floor(q) or ceil(q)
end

local function div_ceil(x, d)
  local q = idiv(x, d)
  return (x - q * d ~= 0) and q + 1 or q
end

-- floor(a * b / c) and its remainder, exactly, for 0 <= a < c <= 2^52 and 0 <= b < 2^53:
-- binary long multiplication, every step below 2c.
local function mul_div(a, b, c)
  local bits = {}
  while b > 0 do
    local half = floor(b / 2)
    bits[#bits + 1] = b - 2 * half
    b = half
  end
  local q, r = 0, 0
  for i = #bits, 1, -1 do
    q, r = 2 * q, 2 * r
    if r >= c then q, r = q + 1, r - c end
    if bits[i] == 1 then
      r = r + a
      if r >= c then q, r = q + 1, r - c end
    end
  end
  return q, r
end

local printable
do
  -- Text the module echoes in an error: from_utf8_lossy, control characters as '?', at most
  -- 64 characters.
  local function utf8_char(s, i)
    local b = byte(s, i)
    if b < 0x80 then return b, 1 end
    local need, lo, hi
    if b >= 0xC2 and b <= 0xDF then need, lo, hi = 1, 0x80, 0xBF
    elseif b == 0xE0 then need, lo, hi = 2, 0xA0, 0xBF
    elseif b == 0xED then need, lo, hi = 2, 0x80, 0x9F
    elseif b >= 0xE1 and b <= 0xEF then need, lo, hi = 2, 0x80, 0xBF
    elseif b == 0xF0 then need, lo, hi = 3, 0x90, 0xBF
    elseif b >= 0xF1 and b <= 0xF3 then need, lo, hi = 3, 0x80, 0xBF
    elseif b == 0xF4 then need, lo, hi = 3, 0x80, 0x8F
    else return nil, 1 end
    local cp = b % (2 ^ (6 - need))
    for k = 1, need do
      local c = byte(s, i + k)
      if not c or c < lo or c > hi then return nil, k end
      cp = cp * 64 + (c - 0x80)
      lo, hi = 0x80, 0xBF
    end
    return cp, need + 1
  end

  function printable(s)
    local out, count, i = {}, 0, 1
    while i <= #s do
      if count == 64 then
        out[#out + 1] = '...'
        break
      end
      local cp, len = utf8_char(s, i)
      if cp == nil then
        out[#out + 1] = '\239\191\189' -- U+FFFD
      elseif cp < 0x20 or (cp >= 0x7F and cp <= 0x9F) then
        out[#out + 1] = '?'
      else
        out[#out + 1] = sub(s, i, i + len - 1)
      end
      count = count + 1
      i = i + len
    end
    return table.concat(out)
  end
end

-- Arguments ---------------------------------------------------------------------------------

local once, option_value, unknown_option, parse_options, EXTRAS, check_extras, check_mode, parse_windows
do
  local MAX_WINDOWS = 8

  -- Keyword options: case-insensitive, each at most once. A cursor over args from `from`.
  local function options(args, from)
    if args[from] == nil then return nil end -- none: the common call allocates nothing
    return { args = args, at = from, seen = {} }
  end

  -- The next option word (an iterator: `for word in next_word, o do`).
  local function next_word(o)
    if o == nil then return nil end
    local word = o.args[o.at]
    o.at = o.at + 1
    return word
  end

  function once(o, name)
    if o.seen[name] then
      fail("ERR option '" .. name .. "' given more than once")
    end
    o.seen[name] = true
  end

  function option_value(o, name)
    once(o, name)
    local v = next_word(o)
    if v == nil then
      fail('ERR ' .. name .. ' needs a value')
    end
    return v
  end

  function unknown_option(word)
    if looks_like_integer(word) then
      fail("ERR '" .. printable(word) .. "' where an option was expected: window_ms limit pairs come before the options")
    end
    fail("ERR unknown option '" .. printable(word) .. "'")
  end

  -- The options after the pairs: handlers[WORD](o, req) for each known word (any case), refuse(word)
  -- for any other.
  function parse_options(args, from, req, handlers, refuse)
    local o = options(args, from)
    for word_ in next_word, o do
      local handle = handlers[word_:upper()]
      if handle == nil then refuse(word_) end
      handle(o, req)
    end
    return req
  end

  local function parse_cost(value)
    local cost = arg_int(value)
    if cost == nil or cost < 1 then
      fail('ERR COST must be a positive integer')
    end
    return cost
  end

  -- COST n, which every command takes, and REFUND n and BLOCK ms (parse.rs `Extras`), the
  -- options every recording command shares.
  local MAX_BLOCK_MS = MAX_WINDOW_MS

  EXTRAS = {
    COST = function(o, req)
      req.cost, req.cost_given = parse_cost(option_value(o, 'COST')), true
    end,
    REFUND = function(o, req)
      local text = option_value(o, 'REFUND')
      local n = arg_int(text)
      if n == nil or n < 1 then fail('ERR REFUND must be a positive integer') end
      req.refund, req.refund_text = n, text
    end,
    BLOCK = function(o, req)
      local ms = arg_int(option_value(o, 'BLOCK'))
      if ms == nil or ms < 1 or ms > MAX_BLOCK_MS then range_error('BLOCK', 1, MAX_BLOCK_MS) end
      req.block_ms = ms
    end,
  }

  -- The combinations every parser refuses (checked once the options are read), then the options
  -- _RO refuses (checked by the entry point, as the module's adapters do).
  function check_extras(req)
    if req.refund and req.cost_given then fail('ERR REFUND cannot be combined with COST') end
    if req.refund and req.block_ms then fail('ERR REFUND cannot be combined with BLOCK') end
    return req
  end

  function check_mode(req, record)
    local name = not record and (req.refund and 'REFUND' or req.block_ms and 'BLOCK')
    if name then fail('ERR ' .. name .. ' is an option of the recording commands, not of _RO') end
  end

  local function parse_window_ms(value)
    local w = arg_int(value)
    if w == nil or w < 1 or w > MAX_WINDOW_MS then
      range_error('window_ms', 1, MAX_WINDOW_MS)
    end
    return w
  end

  -- `window_ms limit [window_ms limit ...]` from args[1]: the pairs shortest window first, and
  -- where the options start. max_limit(args, from) is the bound for the limits.
  function parse_windows(args, max_limit)
    if args[3] == nil and args[2] ~= nil then -- one pair, no options: the common call
      local w = parse_window_ms(args[1])
      local limit, bound = arg_int(args[2]), max_limit(args, 3)
      if limit == nil or limit < 0 or limit > bound then
        range_error('limit', 0, bound)
      end
      return { { window_ms = w, limit = limit } }, 3
    end
    if #args < 2 then
      range_error('window_ms', 1, MAX_WINDOW_MS)
    end
    local raw = { { parse_window_ms(args[1]), args[2] } }
    local i = 3
    while args[i] ~= nil do
      if #raw > MAX_WINDOWS then
        fail('ERR at most 8 window_ms limit pairs are allowed')
      end
      if not looks_like_integer(args[i]) then
        break
      end
      local w = parse_window_ms(args[i])
      local limit = args[i + 1]
      if limit == nil or not looks_like_integer(limit) then
        fail('ERR window_ms ' .. fmt(w) .. ' has no limit after it')
      end
      raw[#raw + 1] = { w, limit }
      i = i + 2
    end
    if #raw > MAX_WINDOWS then
      fail('ERR at most 8 window_ms limit pairs are allowed')
    end
    local bound = max_limit(args, i)
    local windows = {}
    for _, pair in ipairs(raw) do
      local limit = arg_int(pair[2])
      if limit == nil or limit < 0 or limit > bound then
        range_error('limit', 0, bound)
      end
      local at = #windows + 1
      for k, w in ipairs(windows) do
        if w.window_ms == pair[1] then
          fail('ERR window_ms ' .. fmt(pair[1]) .. ' given more than once')
        end
        if w.window_ms > pair[1] and at > k then
          at = k
        end
      end
      table.insert(windows, at, { window_ms = pair[1], limit = limit })
    end
    return windows, i
  end
end

-- The server ------------------------------------------------------------------------------

local function bind_globals()
  floor, ceil, min, max = math.floor, math.ceil, math.min, math.max
  byte, char, sub, find, format, match = string.byte, string.char, string.sub, string.find, string.format, string.match
  -- Redis 7.0+ and Valkey have PEXPIRETIME and SET ... PXAT in every script; Redis 6.x
  -- scripts are told apart by redis.REDIS_VERSION_NUM, which 7.0 added.
  HAS_EXPIRETIME = redis.REDIS_VERSION_NUM ~= nil
  rcall, rpcall, type_of, protected = redis.call, redis.pcall, type, pcall
end

local function call(...)
  return rcall(...)
end

-- A script without flags (Redis 6.x) is checked for maxmemory and a read-only replica only at
-- its first write command, not at its start as a Function or a module command is, and a
-- call's first write may be one Redis lets through (PEXPIREAT, ZREMRANGEBYSCORE, DEL). So in
-- a script the first write is preceded by a guard: a write that changes nothing on a missing
-- key or one of the type the call reads (a string: SETRANGE key 0 ""; the exact log's sorted
-- set: ZADD key XX INCR 0, which adds no member and moves no score), whose OOM or READONLY
-- refusal is the call's, before anything is written. It fits the key's type, so it adds no
-- error to INFO errorstats. Its other errors (NOPERM) are not refusals. A call that writes
-- nothing is not checked (the module's writers are refused under maxmemory even then).
-- false, or the key's type: 'string', or 'zset' (set by the exact log's reader).
local first_write_guard = false

local GUARDS = {
  string = { 'SETRANGE', 0, '' },
  zset = { 'ZADD', 'XX', 'INCR', '0', 'block:' },
}

-- Redis 6.x gives a refused command (READONLY on a replica, OOM) as its own error line after
-- the script's place ("@user_script: 319: -OOM ...\r\n"): the server's error, as it is.
local function server_refusal(text)
  if type(text) == 'table' then text = text.err end
  return type(text) == 'string' and text:match('^@user_script:%s*%d+:%s*%-(%u+ .-)%s*$') or nil
end

local function write(key, ...)
  if first_write_guard then
    local guard = GUARDS[first_write_guard]
    first_write_guard = false
    local reply = redis.pcall(guard[1], key, unpack(guard, 2))
    local refused = server_refusal(reply) or (type(reply) == 'table' and reply.err)
    if refused and (refused:match('^OOM ') or refused:match('^READONLY ')) then fail(refused) end
  end
  return rcall(...)
end

-- The server's clock in ms; never the application's. (TIME's fields are decimal text, which
-- Lua's arithmetic reads as numbers, cheaper than tonumber; the µs rounded down without a
-- call to floor.)
local function server_ms()
  local t = rpcall('TIME')
  if t.err then
    fail('ERR winlimit needs the server clock and this server refused TIME inside the library ('
      .. t.err .. '); it never falls back to the application clock')
  end
  local us = t[2] + 0
  return t[1] * 1000 + (us - us % 1000) / 1000
end

-- A read that checks the key's type on the way: the server's WRONGTYPE error is the module's,
-- word for word (one call fewer than TYPE first).
local function typed(...)
  local reply = rpcall(...)
  if type_of(reply) == 'table' and reply.err then
    fail(reply.err)
  end
  return reply
end

-- The key's absolute expiry in ms as PEXPIRETIME gives it: -2 no key, -1 no expiry. Redis 6.x:
-- PTTL between two clock reads in the same ms, so the sum is the stored time.
local function raw_expiry(key)
  if HAS_EXPIRETIME then
    return call('PEXPIRETIME', key)
  end
  local at
  for _ = 1, 4 do
    local before = server_ms()
    local left = call('PTTL', key)
    at = left < 0 and left or before + left
    if server_ms() == before then
      break
    end
  end
  return at
end

local function expires_at(key)
  local at = raw_expiry(key)
  return at >= 0 and at or nil
end

-- SET key value with an absolute expiry (6.0 has no PXAT: SET, then PEXPIREAT).
local function set_with_expiry(key, value, at)
  if at == nil then
    write(key, 'SET', key, value)
  elseif HAS_EXPIRETIME then
    write(key, 'SET', key, value, 'PXAT', fmt(at))
  else
    write(key, 'SET', key, value)
    write(key, 'PEXPIREAT', key, fmt(at))
  end
end

-- Verdicts (src/core/verdict.rs) ---------------------------------------------------------------

local function remaining(limit, used)
  return min(max(limit - used, 0), limit)
end

-- BLOCK (src/core/block.rs). The reply while blocked until `till`: rejected, nothing
-- remaining, the waits at least the time left in the block.
local function while_blocked(verdict, now, till)
  local left = till - now
  verdict[1], verdict[3] = 0, 0
  verdict[4], verdict[5] = max(verdict[4], left), max(verdict[5], left)
  return verdict
end

-- The end of the block a call starts: a recording call with BLOCK, rejected with a wait, on a
-- key not blocked already (the caller asks only then); nil when it starts none.
local function block_starts(verdict, record, req, now)
  if record and req.block_ms and verdict[1] == 0 and verdict[4] ~= NEVER then
    return now + req.block_ms
  end
  return nil
end

-- WINLIMIT.SLIDE (both logs and what they share) ---------------------------------------------

local slide
do
  -- The module's default winlimit.max-limit: a library cannot read module settings.
  local MAX_EXACT_LIMIT = 10000
  local MAX_BUCKETED_LIMIT = 1000000000000
  local MAX_BUCKETS_PER_WINDOW = 1000

  -- The reply for several pairs: accepted, the least remaining; a cost above a limit, that
  -- pair; else the pair whose room comes last. Ties go to the longer window (the later pair).
  local function bind(pairs)
    local allowed, never = true, false
    for _, p in ipairs(pairs) do
      if p.wait_ms ~= 0 then allowed = false end
      if p.wait_ms == NEVER then never = true end
    end
    local binding
    for _, p in ipairs(pairs) do
      if allowed then
        if binding == nil or p.remaining <= binding.remaining then binding = p end
      elseif never then
        if p.wait_ms == NEVER then binding = p end
      elseif binding == nil or p.wait_ms >= binding.wait_ms then
        binding = p
      end
    end
    return { allowed and 1 or 0, binding.limit, binding.remaining, binding.wait_ms, binding.reset_after_ms }
  end

  local function expiry_slack(window_ms)
    -- min(floor(window_ms / 8), 60000), without two calls (window_ms < 2^53: exact).
    if window_ms >= 480000 then return 60000 end
    return (window_ms - window_ms % 8) / 8
  end

  -- The expiry to give a key whose newest unit counts until newest_end + window_ms; nil when
  -- the current one lies within the slack above that.
  local function expiry_to_set(newest_end, window_ms, current)
    local needed = newest_end + window_ms
    local slack = expiry_slack(window_ms)
    if current ~= nil and current >= needed and current <= needed + slack then
      return nil
    end
    return needed + slack
  end

  -- Each pair's remaining after recording `recorded` units, and its reset time.
  local function settle(pairs, windows, recorded, newest_end, now)
    for i, pair in ipairs(pairs) do
      if recorded then
        pair.remaining = pair.remaining - recorded
      end
      local left = newest_end and (newest_end + windows[i].window_ms - now) or 0
      pair.reset_after_ms = left > 0 and left or 0
    end
  end

  local function all_room(pairs)
    for _, p in ipairs(pairs) do
      if p.wait_ms ~= 0 then return false end
    end
    return true
  end

  -- A shorter window that surely has room, and at least as much left as the largest pair, cannot
  -- be the one the reply describes (ties go to the longer window): its exact count changes
  -- nothing, so it is not counted. Nil when it must be.
  local function surely_not_binding(window, cost, is_largest, counted_in_largest, largest_remaining)
    local limit = window.limit
    if not is_largest and counted_in_largest + cost <= limit and limit - counted_in_largest >= largest_remaining then
      return { limit = limit, remaining = limit - counted_in_largest, wait_ms = 0 }
    end
    return nil
  end

  -- A pair's answer once its count is known; room_wait(...) is asked only when the cost fits the
  -- limit but not the room left now.
  local function pair_answer(limit, counted, cost, room_wait, ...)
    local wait = 0
    if cost > limit then
      wait = NEVER
    elseif counted + cost > limit then
      wait = room_wait(...)
    end
    return { limit = limit, remaining = remaining(limit, counted), wait_ms = wait }
  end

  local slide_exact, slide_exact_refund, slide_exact_plain
  do
    local MEMBER_FIRST, MEMBER_LAST = 1000000000, 2147483647
    local TRIM_FRACTION, TRIM_STEP = 8, 1024
    local MEMBERS_PER_ZADD = 1024

    -- WINLIMIT.SLIDE: the exact log (src/core/slide.rs, src/redis/adapters/slide.rs) ------------

    -- A stored score as whole ms: rounded up.
    local function score_ms(score)
      local s = tonumber(score)
      if s == nil or s ~= s or s == math.huge or s == -math.huge then
        beyond('a score of this key')
      end
      return exact(ceil(s), 'a score of this key')
    end

    local function zcount(key, lo, hi)
      return call('ZCOUNT', key, lo, hi)
    end

    -- The score of the n-th (from 0) element of a ZRANGE-like read, nil when there is none.
    local function score_at(reply)
      if reply[2] == nil then return nil end
      return score_ms(reply[2])
    end

    local function next_member(member)
      if member ~= nil and member >= MEMBER_FIRST and member < MEMBER_LAST then
        return member + 1
      end
      return MEMBER_FIRST
    end

    -- When room appears for `cost` more: once the entry `limit - cost` places from the newest
    -- leaves, reached from whichever end is nearer (from the oldest only in the largest window,
    -- whose count is exact).
    local function slide_room_wait(key, now, window, cost, counted, is_largest, cutoff, markers)
      local limit = window.limit
      local from_oldest = counted + cost - limit - 1
      local from_newest = limit - cost
      local freeing
      if is_largest and from_oldest <= from_newest then
        freeing = score_at(call('ZRANGEBYSCORE', key, '(' .. fmt(cutoff), '(+inf', 'WITHSCORES', 'LIMIT', fmt(from_oldest), '1'))
      else
        -- By rank past the block markers, which sort after every entry.
        freeing = score_at(call('ZREVRANGE', key, fmt(markers + from_newest), fmt(markers + from_newest), 'WITHSCORES'))
      end
      return freeing and max(exact(freeing + window.window_ms - now, 'a score of this key'), 1) or window.window_ms
    end

    -- One pair's answer before anything is recorded (slide.rs `check`).
    local function slide_check(key, now, window, cost, largest_ms, counted_in_largest, largest_remaining, markers)
      local is_largest = window.window_ms == largest_ms
      local skipped = surely_not_binding(window, cost, is_largest, counted_in_largest, largest_remaining)
      if skipped then return skipped end
      local limit = window.limit
      local cutoff = now - window.window_ms
      local counted = counted_in_largest
      if not is_largest and counted_in_largest > 0 then
        local largest_cutoff = now - largest_ms
        if cutoff > largest_cutoff and zcount(key, '(' .. fmt(largest_cutoff), fmt(cutoff)) > 0 then
          counted = min(zcount(key, '(' .. fmt(cutoff), '(+inf'), limit + 1)
        end
      end
      return pair_answer(limit, counted, cost, slide_room_wait, key, now, window, cost, counted, is_largest, cutoff, markers)
    end

    -- ZADD `count` new members at `score`: from `first`, each the next in the sequence, skipping
    -- members the set holds (never moving a score), in batches (unpack takes ~8,000 values).
    local function zadd_new(key, score, count, first)
      local candidate, left, at = first, count, fmt(score)
      while left > 0 do
        local batch = min(left, MEMBERS_PER_ZADD)
        local argv = {}
        for i = 1, batch do
          argv[2 * i - 1] = at
          argv[2 * i] = fmt(candidate)
          candidate = next_member(candidate)
        end
        left = left - write(key, 'ZADD', key, 'NX', unpack(argv))
      end
    end

    -- A block is the member `block:<end_ms>` scored +inf (slide.rs `block_member`): after every
    -- entry, in no window, and no entry (every count leaves +inf out).
    local function block_member_end(member)
      return member:find('^block:') and parse_int(sub(member, 7)) or nil
    end

    -- The log's state for a call: its size, the entries that left the largest window, the newest,
    -- the stored block's end (in force or not).
    local function read_log(key, now, cutoff)
      if first_write_guard then first_write_guard = 'zset' end
      local raw = raw_expiry(key)
      local log = { expiry = raw >= 0 and raw or nil, len = 0, stale = 0, exists = raw ~= -2, markers = 0 }
      if raw == -2 then return log end
      local len = typed('ZCARD', key)
      local last = call('ZRANGE', key, '-1', '-1', 'WITHSCORES')
      if last[2] == 'inf' then
        log.markers = zcount(key, '+inf', '+inf')
        len = len - log.markers
        log.blocked_until = block_member_end(last[1])
        local m = fmt(log.markers)
        last = len > 0 and call('ZREVRANGE', key, m, m, 'WITHSCORES') or {}
      end
      log.expired = log.expiry ~= nil and log.expiry <= now
      if log.expired then return log end
      log.len = len
      if log.len > 0 then
        log.stale = zcount(key, '-inf', fmt(cutoff))
        log.newest_score = last[2]
        log.newest_member = parse_int(last[1])
      end
      return log
    end

    -- The log's writes, in the module's order: DEL, ZREMRANGEBYSCORE, ZADD the entries, ZREM an
    -- ended block's marker (after the entries, so the set never empties on the way), ZADD the new
    -- block's marker, PEXPIREAT.
    local function exact_apply(key, log, plan, now, cost)
      if plan.discard then write(key, 'DEL', key) end
      if plan.trim then write(key, 'ZREMRANGEBYSCORE', key, '-inf', fmt(plan.trim)) end
      if plan.records then zadd_new(key, now, cost, next_member(log.newest_member)) end
      if log.blocked_until and not plan.discard then
        write(key, 'ZREM', key, 'block:' .. fmt(log.blocked_until))
      end
      if plan.block then write(key, 'ZADD', key, '+inf', 'block:' .. fmt(plan.block)) end
      local exists = (log.exists and not plan.discard) or plan.records or plan.block
      if plan.expire_at and exists then
        write(key, 'PEXPIREAT', key, fmt(plan.expire_at))
      end
    end

    -- What a recording call writes (slide.rs `decide_log`'s plan); the block is added after.
    local function exact_plan(key, log, records, newest_after, cutoff, largest_ms)
      local plan = { records = records }
      plan.discard = log.expired or (log.len > 0 and log.stale == log.len)
      if not plan.discard and log.stale > 0 and log.stale * TRIM_FRACTION >= log.len then
        plan.trim = cutoff
        if log.stale > TRIM_STEP then
          local s = score_at(call('ZRANGE', key, fmt(TRIM_STEP - 1), fmt(TRIM_STEP - 1), 'WITHSCORES'))
          plan.trim = s and min(s, cutoff) or cutoff
        end
      end
      plan.expire_at = newest_after and expiry_to_set(newest_after, largest_ms, (not plan.discard) and log.expiry or nil)
      return plan
    end

    -- The common call, `window_ms limit` alone, on a missing key or a live log without a
    -- block, with room for one more: no tables for the request, the pairs or the plan. Nil
    -- when the call needs the full path (an argument out of range, a block marker, an expired
    -- or stale-only log, a trim, no room): it then reads the key again. Nothing is written
    -- before it answers nil.
    function slide_exact_plain(key, args, record)
      local w, limit = arg_int(args[1]), arg_int(args[2])
      if w == nil or w < 1 or w > MAX_WINDOW_MS or limit == nil or limit < 1 or limit > MAX_EXACT_LIMIT then
        return nil
      end
      local now = server_ms()
      if first_write_guard then first_write_guard = 'zset' end
      local raw = HAS_EXPIRETIME and rcall('PEXPIRETIME', key) or raw_expiry(key)
      if raw == -2 then
        if not record then return { 1, limit, limit, 0, 0 } end
        zadd_new(key, now, 1, MEMBER_FIRST)
        write(key, 'PEXPIREAT', key, fmt(now + w + expiry_slack(w)))
        return { 1, limit, limit - 1, 0, w }
      end
      local len = typed('ZCARD', key)
      local last = rcall('ZRANGE', key, '-1', '-1', 'WITHSCORES')
      if last[2] == 'inf' or (raw >= 0 and raw <= now) then return nil end
      local stale = rcall('ZCOUNT', key, '-inf', format('%d', now - w))
      local counted = len - stale
      if counted < 1 or counted >= limit or stale * TRIM_FRACTION >= len and stale > 0 then return nil end
      -- An integer score as Redis writes it, read as parse_int reads it; else as score_ms does.
      local score = last[2]
      local newest = #score < 16 and find(score, '^%-?[1-9]%d*$') and score + 0 or score_ms(score)
      if not record then
        local left = newest + w - now
        return { 1, limit, limit - counted, 0, left > 0 and left or 0 }
      end
      local newest_after = newest > now and newest or now
      -- One entry: ZADD NX the next member the set does not hold (zadd_new without its batch).
      local member, at = next_member(parse_int(last[1])), fmt(now)
      while write(key, 'ZADD', key, 'NX', at, fmt(member)) == 0 do member = next_member(member) end
      local needed = newest_after + w
      if raw < needed or raw > needed + expiry_slack(w) then
        write(key, 'PEXPIREAT', key, fmt(needed + expiry_slack(w)))
      end
      local left = newest_after + w - now
      return { 1, limit, limit - counted - 1, 0, left > 0 and left or 0 }
    end

    function slide_exact(key, req, record, now)
      local windows, cost = req.windows, req.cost
      local largest = windows[#windows]
      local cutoff = now - largest.window_ms
      local log = read_log(key, now, cutoff)
      local counted_in_largest = log.len - min(log.stale, log.len)
      local largest_remaining = remaining(largest.limit, counted_in_largest)
      local pairs = {}
      for i, w in ipairs(windows) do
        pairs[i] = slide_check(key, now, w, cost, largest.window_ms, counted_in_largest, largest_remaining, log.markers)
      end
      local records = record and all_room(pairs)
      -- Read as ms only when it counts: a hostile score that counts nowhere is no range error.
      local newest_counted = counted_in_largest > 0 and score_ms(log.newest_score) or nil
      local newest_after = newest_counted
      if records then newest_after = newest_counted and max(newest_counted, now) or now end
      settle(pairs, windows, records and cost, newest_after, now)
      local verdict = bind(pairs)
      if log.blocked_until and log.blocked_until > now then return while_blocked(verdict, now, log.blocked_until) end
      if not record then return verdict end

      local plan = exact_plan(key, log, records, newest_after, cutoff, largest.window_ms)
      plan.block = block_starts(verdict, record, req, now)
      if plan.block then
        verdict = while_blocked(verdict, now, plan.block)
        -- The key lives at least until the block ends.
        local expiry = plan.expire_at or log.expiry
        if expiry == nil or expiry < plan.block then plan.expire_at = plan.block end
      end
      if plan.discard or plan.trim or records or plan.expire_at or plan.block then
        exact_apply(key, log, plan, now, cost)
      end
      return verdict
    end

    -- REFUND n: the n newest entries the largest window counts go (ZREM), none while a block is in
    -- force or when the log has expired. The reply is the peek of cost 1 that follows.
    function slide_exact_refund(key, req, now)
      local log = read_log(key, now, now - req.windows[#req.windows].window_ms)
      if not (log.blocked_until and log.blocked_until > now) then
        local take = min(log.len - min(log.stale, log.len), req.refund)
        if take > 0 then
          local newest = call('ZREVRANGE', key, fmt(log.markers), fmt(log.markers + take - 1))
          for i = 1, #newest, MEMBERS_PER_ZADD do
            write(key, 'ZREM', key, unpack(newest, i, min(i + MEMBERS_PER_ZADD - 1, #newest)))
          end
        end
      end
      return slide_exact(key, { windows = req.windows, cost = 1 }, false, now)
    end
  end

  local slide_bucketed, bucket_refund
  do
    -- WINLIMIT.SLIDE ... BUCKET: a ring of buckets in a string (src/core/bucketed.rs,
    -- bucket_ring.rs, src/redis/adapters/bucketed.rs) ------------------------------------------

    local MAX_WALK = 4 * (MAX_BUCKETS_PER_WINDOW + 1)

    local MAGIC = 'wlbucket'
    local W_BUCKET_MS, W_TOTAL, W_OLDEST, W_NEWEST, HEADER_WORDS = 1, 2, 3, 4, 5

    local function invalid(what)
      fail('ERR this key holds what winlimit does not write: ' .. what)
    end

    -- An i64 from 8 big-endian bytes in decimal, exactly, however large (for error texts).
    local function i64_text(bytes)
      local b = { byte(bytes, 1, 8) }
      local negative = b[1] >= 128
      if negative then -- two's complement: invert and add one
        local carry = 1
        for i = 8, 1, -1 do
          local v = 255 - b[i] + carry
          b[i], carry = v % 256, floor(v / 256)
        end
      end
      local digits = {}
      repeat
        local r, nonzero = 0, false
        for i = 1, 8 do
          local v = r * 256 + b[i]
          b[i], r = floor(v / 10), v % 10
          if b[i] ~= 0 then nonzero = true end
        end
        table.insert(digits, 1, fmt(r))
      until not nonzero
      return (negative and '-' or '') .. table.concat(digits)
    end

    -- Word k (from 0) of the ring: its value, and whether a double holds it exactly.
    local function word(bytes, k)
      local b1, b2, b3, b4, b5, b6, b7, b8 = byte(bytes, 8 * k + 1, 8 * k + 8)
      local hi = ((b1 * 256 + b2) * 256 + b3) * 256 + b4
      if hi >= 2147483648 then hi = hi - 4294967296 end
      local value = hi * 4294967296 + ((b5 * 256 + b6) * 256 + b7) * 256 + b8
      return value, hi >= -2097152 and hi < 2097152
    end

    -- A header word the decision computes with: exact, or the range error.
    local function exact_word(bytes, k)
      local value, is_exact = word(bytes, k)
      if not is_exact then beyond('a word of this bucketed log') end
      return value
    end

    local function be64(v)
      local hi = floor(v / 4294967296)
      local lo = v - hi * 4294967296
      if hi < 0 then hi = hi + 4294967296 end
      return char(floor(hi / 16777216), floor(hi / 65536) % 256, floor(hi / 256) % 256, hi % 256,
        floor(lo / 16777216), floor(lo / 65536) % 256, floor(lo / 256) % 256, lo % 256)
    end

    local function span(h)
      return tdiv(h.newest - h.oldest, h.bucket_ms) + 1
    end

    -- The stored ring's header, validated as the module validates it (same checks, same order).
    local function ring_header(bytes)
      local len = #bytes
      -- Whole slots, perhaps with BLOCK's word after them (the block's end).
      if sub(bytes, 1, 8) ~= MAGIC or len % 8 ~= 0 or len < (HEADER_WORDS + 2) * 8 then
        invalid('the string is not a bucketed log')
      end
      local slots = floor((len / 8 - HEADER_WORDS) / 2)
      local b = word(bytes, W_BUCKET_MS)
      if b < 1 then invalid('bucket_ms is not positive') end
      if word(bytes, W_TOTAL) < 1 then invalid('total is not positive') end
      local h = { bucket_ms = exact_word(bytes, W_BUCKET_MS), total = exact_word(bytes, W_TOTAL),
        oldest = exact_word(bytes, W_OLDEST), newest = exact_word(bytes, W_NEWEST), slots = slots }
      if h.oldest % h.bucket_ms ~= 0 or h.newest % h.bucket_ms ~= 0 or h.oldest > h.newest then
        invalid('oldest and newest are not bucket starts in order')
      end
      if span(h) > slots then invalid('its buckets span more slots than it holds') end
      if len / 8 > HEADER_WORDS + 2 * slots then h.blocked_until = exact_word(bytes, HEADER_WORDS + 2 * slots) end
      return h
    end

    local function slot_of(start, bucket_ms, slots)
      return idiv(start, bucket_ms) % slots
    end

    local function start_word(j)
      return HEADER_WORDS + 2 * j
    end

    -- Units of the bucket starting at `start` under the validated header h (0 when not stored).
    local function ring_units(bytes, h, start)
      if start < h.oldest or start > h.newest then return 0 end
      local j = slot_of(start, h.bucket_ms, h.slots)
      if word(bytes, start_word(j)) ~= start then return 0 end
      local units, is_exact = word(bytes, start_word(j) + 1)
      if units < 0 then
        local at = 8 * start_word(j)
        invalid('bucket ' .. fmt(start) .. ' holds ' .. i64_text(sub(bytes, at + 9, at + 16)) .. ', not a count')
      end
      if not is_exact then beyond('a bucket of this bucketed log') end
      return units
    end

    -- The least multiple of b with now - (s + b - 1) < window_ms.
    local function first_counted(now, window_ms, b)
      local least = now - window_ms - b + 2
      local q = idiv(least, b)
      if least - q * b ~= 0 then q = q + 1 end
      return q * b
    end

    -- The bucket starts from `from` to `to`, bounded as the module bounds them.
    local function walk_steps(from, to, b)
      local steps = to < from and 0 or tdiv(to - from, b) + 1
      if steps > MAX_WALK then
        invalid('its buckets span more than winlimit writes (did the server clock step back?)')
      end
      return steps
    end

    local function bucket_sum(view, from, to, b)
      local total = 0
      for i = 0, walk_steps(from, to, b) - 1 do
        total = exact(total + view.units(from + i * b), 'the units of this bucketed log')
      end
      return total
    end

    -- When room appears for `cost` more: buckets leave oldest first, and the one whose departure
    -- frees enough room decides.
    local function bucket_room_wait(view, now, window, cost, counted, first, h, b)
      local need, freed, freeing = counted + cost - window.limit, 0, first
      local to = h and h.newest or first
      for i = 0, walk_steps(first, to, b) - 1 do
        freeing = first + i * b
        freed = freed + view.units(freeing)
        if freed >= need then break end
      end
      return max(freeing + b - 1 + window.window_ms - now, 1)
    end

    -- One pair's answer before anything is recorded (bucketed.rs `check`).
    local function bucket_check(now, window, cost, b, largest_ms, counted_in_largest, largest_remaining, h, view)
      local is_largest = window.window_ms == largest_ms
      local skipped = surely_not_binding(window, cost, is_largest, counted_in_largest, largest_remaining)
      if skipped then return skipped end
      local first = first_counted(now, window.window_ms, b)
      local counted = 0
      if h == nil then
        counted = 0
      elseif is_largest or counted_in_largest == 0 then
        counted = counted_in_largest
      elseif h.newest >= first then
        local first_in_largest = max(first_counted(now, largest_ms, b), h.oldest)
        local inside = tdiv(h.newest - first, b) + 1
        local outside = tdiv(first - first_in_largest, b)
        if inside <= outside then
          counted = bucket_sum(view, first, h.newest, b)
        else
          counted = counted_in_largest - bucket_sum(view, first_in_largest, first - b, b)
        end
      end
      return pair_answer(window.limit, counted, cost, bucket_room_wait, view, now, window, cost, counted, first, h, b)
    end

    -- The units that count in the largest window: the running total less what left it.
    local function counted_in(view, h, first_in_largest, b)
      if h == nil then return 0 end
      if h.oldest >= first_in_largest then return h.total end
      local departed = bucket_sum(view, h.oldest, min(first_in_largest - b, h.newest), b)
      local counted = h.total - departed
      if counted < 0 then invalid('its total is less than its buckets hold') end
      return counted
    end

    -- The header after the call, or nil when nothing changes (bucketed.rs, after the verdict).
    local function next_header(plan, live, view, now, b, first_in_largest, counted_in_largest, cost)
      local nxt = live
      if live and live.oldest < first_in_largest then
        local oldest = live.newest
        for i = 0, walk_steps(first_in_largest, live.newest, b) - 1 do
          local s = first_in_largest + i * b
          if view.units(s) > 0 then oldest = s break end
        end
        nxt = { bucket_ms = b, total = counted_in_largest, oldest = oldest, newest = live.newest }
      end
      if plan.records then
        local current = idiv(now, b) * b
        local into = live and max(live.newest, current) or current
        local units = live and view.units(into) or 0
        plan.record = { into, exact(units + cost, 'the units of this bucketed log') }
        if nxt == nil then
          nxt = { bucket_ms = b, total = cost, oldest = into, newest = into }
        else
          nxt = { bucket_ms = b, total = exact(nxt.total + cost, 'the units of this bucketed log'), oldest = nxt.oldest, newest = into }
        end
      end
      if nxt and live and nxt.total == live.total and nxt.oldest == live.oldest and nxt.newest == live.newest then
        return nil
      end
      return nxt
    end

    -- The whole ring for header `after` (a new key, or one grown for a larger window).
    local function whole_ring(plan, after, live, view, window_ms)
      local n = span(after)
      if n > MAX_WALK then invalid('its buckets span more than winlimit writes') end
      local pow = 1
      while pow < n do pow = pow * 2 end
      local slots = min(pow, max(div_ceil(max(window_ms, 1), after.bucket_ms) + 1, n))
      local words = { MAGIC, be64(after.bucket_ms), be64(after.total), be64(after.oldest), be64(after.newest) }
      local zero = be64(0)
      for i = HEADER_WORDS, HEADER_WORDS + 2 * slots - 1 do words[i + 1] = zero end
      for i = 0, n - 1 do
        local s = after.oldest + i * after.bucket_ms
        local units = 0
        if plan.record and plan.record[1] == s then
          units = plan.record[2]
        elseif live then
          units = view.units(s)
        end
        if units > 0 then
          local j = slot_of(s, after.bucket_ms, slots)
          words[start_word(j) + 1], words[start_word(j) + 2] = be64(s), be64(units)
        end
      end
      return table.concat(words)
    end

    -- Carries the decision out: BITFIELD SET i64 for the changed words of a ring kept, SET (with
    -- the expiry) for a new or grown one, PEXPIREAT, DEL, as the module replicates them.
    local function bucket_apply(key, bytes, plan, after, live, view, window_ms)
      if plan.discard then write(key, 'DEL', key) end
      local expire_at = plan.expire_at
      local exists = live ~= nil
      if after then
        if live and span(after) <= live.slots then
          local set = {}
          local function change(k, new, old)
            if new ~= old then
              set[#set + 1] = 'SET'; set[#set + 1] = 'i64'; set[#set + 1] = '#' .. fmt(k); set[#set + 1] = fmt(new)
            end
          end
          change(W_TOTAL, after.total, live.total)
          change(W_OLDEST, after.oldest, live.oldest)
          change(W_NEWEST, after.newest, live.newest)
          if plan.record then
            local start, units = plan.record[1], plan.record[2]
            local j = slot_of(start, after.bucket_ms, live.slots)
            change(start_word(j), start, word(bytes, start_word(j)))
            change(start_word(j) + 1, units, nil)
          end
          if plan.block then change(start_word(live.slots), plan.block, nil) end
          write(key, 'BITFIELD', key, unpack(set))
        else
          local at = expire_at or ((not plan.discard) and plan.stored_expiry or nil)
          expire_at = nil
          set_with_expiry(key, whole_ring(plan, after, live, view, window_ms), at)
        end
        exists = true
      elseif plan.block and live then
        -- A block on a ring whose header stays: its word alone, after the last slot.
        write(key, 'BITFIELD', key, 'SET', 'i64', '#' .. fmt(start_word(live.slots)), fmt(plan.block))
      end
      if expire_at and exists then write(key, 'PEXPIREAT', key, fmt(expire_at)) end
    end

    -- The stored ring, its expiry, and its header when it is live (checked against BUCKET b); the
    -- clock is read after the type check (nil now: read it), so WRONGTYPE comes before TIME's errors.
    local function read_ring(key, now, b)
      local raw = raw_expiry(key)
      -- Read even when expired: another type is WRONGTYPE whatever its expiry, as in the module.
      local bytes = raw ~= -2 and typed('GET', key) or nil
      now = now or server_ms()
      local stored_expiry = raw >= 0 and raw or nil
      local expired = stored_expiry ~= nil and stored_expiry <= now
      local h = nil
      if bytes and not expired then
        h = ring_header(bytes)
        if h.bucket_ms ~= b then
          fail('ERR BUCKET ' .. fmt(b) .. ' differs from the BUCKET ' .. fmt(h.bucket_ms) .. ' this key was written with')
        end
      end
      return bytes, stored_expiry, expired, h, now
    end

    function slide_bucketed(key, req, record, now)
      local b, windows, cost = req.bucket_ms, req.windows, req.cost
      local largest = windows[#windows]
      local bytes, stored_expiry, expired, h
      bytes, stored_expiry, expired, h, now = read_ring(key, now, b)
      local view = { units = function(s) return h and ring_units(bytes, h, s) or 0 end }
      local first_in_largest = first_counted(now, largest.window_ms, b)
      local counted_in_largest = counted_in(view, h, first_in_largest, b)
      local newest = (h and counted_in_largest > 0) and h.newest or nil
      local largest_remaining = remaining(largest.limit, counted_in_largest)
      local pairs = {}
      for i, w in ipairs(windows) do
        pairs[i] = bucket_check(now, w, cost, b, largest.window_ms, counted_in_largest, largest_remaining, h, view)
      end
      local plan = { records = record and all_room(pairs) }
      local current = idiv(now, b) * b
      local newest_after = newest
      if plan.records then newest_after = newest and max(newest, current) or current end
      local newest_end = newest_after and newest_after + b - 1
      settle(pairs, windows, plan.records and cost, newest_end, now)
      local verdict = bind(pairs)
      if h and h.blocked_until and h.blocked_until > now then return while_blocked(verdict, now, h.blocked_until) end
      if not record then return verdict end

      plan.discard = expired or (h ~= nil and counted_in_largest == 0)
      local live = (not plan.discard) and h or nil
      local after = next_header(plan, live, view, now, b, first_in_largest, counted_in_largest, cost)
      plan.stored_expiry = stored_expiry
      plan.expire_at = newest_end and expiry_to_set(newest_end, largest.window_ms, (not plan.discard) and stored_expiry or nil)
      plan.block = block_starts(verdict, record, req, now)
      if plan.block then
        verdict = while_blocked(verdict, now, plan.block)
        -- The key lives at least until the block ends.
        local expiry = plan.expire_at or stored_expiry
        if expiry == nil or expiry < plan.block then plan.expire_at = plan.block end
      end
      if plan.discard or after or plan.expire_at or plan.block then
        bucket_apply(key, bytes, plan, after, live, view, largest.window_ms)
      end
      return verdict
    end

    -- The header after a refund (bucketed.rs `refund`): the total less what was taken, and the
    -- oldest and newest buckets still holding units. `emptied[s]`: a bucket the refund emptied.
    local function refunded_header(h, view, taken, emptied)
      local oldest, newest = nil, h.newest
      for i = 0, walk_steps(h.oldest, h.newest, h.bucket_ms) - 1 do
        local s = h.oldest + i * h.bucket_ms
        if not emptied[s] and view.units(s) > 0 then
          oldest = oldest or s
          newest = s
        end
      end
      return { total = h.total - taken, oldest = oldest or h.oldest, newest = newest }
    end

    -- REFUND n: up to n units leave the newest buckets the largest window counts, rewritten in
    -- place (one BITFIELD), or the key deleted when none is left; nothing while a block is in
    -- force. The reply is the peek of cost 1 that follows.
    function bucket_refund(key, req)
      local b = req.bucket_ms
      local bytes, _, _, h, now = read_ring(key, nil, b)
      local view = { units = function(s) return ring_units(bytes, h, s) end }
      local first = first_counted(now, req.windows[#req.windows].window_ms, b)
      local left = h and min(req.refund, counted_in(view, h, first, b)) or 0
      if left > 0 and not (h.blocked_until and h.blocked_until > now) then
        local taken, set, emptied = left, {}, {}
        local from = max(first, h.oldest)
        for i = walk_steps(from, h.newest, b) - 1, 0, -1 do
          local s = from + i * b
          local units = view.units(s)
          if units > 0 and left > 0 then
            local t = min(units, left)
            emptied[s], left = units == t, left - t
            local k = start_word(slot_of(s, b, h.slots)) + 1
            set[#set + 1] = 'SET'; set[#set + 1] = 'i64'; set[#set + 1] = '#' .. fmt(k); set[#set + 1] = fmt(units - t)
          end
        end
        if h.total - taken <= 0 then
          write(key, 'DEL', key)
        else
          local after = refunded_header(h, view, taken, emptied)
          for _, f in ipairs({ { W_TOTAL, 'total' }, { W_OLDEST, 'oldest' }, { W_NEWEST, 'newest' } }) do
            if after[f[2]] ~= h[f[2]] then
              set[#set + 1] = 'SET'; set[#set + 1] = 'i64'; set[#set + 1] = '#' .. fmt(f[1]); set[#set + 1] = fmt(after[f[2]])
            end
          end
          write(key, 'BITFIELD', key, unpack(set))
        end
      end
      return slide_bucketed(key, { windows = req.windows, cost = 1, bucket_ms = b }, false, now)
    end
  end

  -- BUCKET b: 1..smallest window, and the largest window spans at most 1,000 buckets.
  local function parse_bucket_ms(value, windows)
    local smallest, largest = windows[1].window_ms, windows[#windows].window_ms
    local b = arg_int(value)
    if b ~= nil and b >= 1 and b <= smallest and idiv(largest + b - 1, b) <= MAX_BUCKETS_PER_WINDOW then
      return b
    end
    local least = idiv(largest + MAX_BUCKETS_PER_WINDOW - 1, MAX_BUCKETS_PER_WINDOW)
    if least > smallest then
      fail('ERR BUCKET cannot serve these windows: the largest needs buckets of at least ' .. fmt(least)
        .. ' ms, the smallest allows at most ' .. fmt(smallest) .. ' ms')
    end
    range_error('BUCKET', least, smallest)
  end

  -- With BUCKET among the options a limit may reach 10^12; the exact log's is the default cap.
  local function slide_max_limit(args, from)
    for i = from, #args do
      if args[i]:upper() == 'BUCKET' then return MAX_BUCKETED_LIMIT end
    end
    return MAX_EXACT_LIMIT
  end

  local SLIDE_OPTIONS = {
    COST = EXTRAS.COST,
    REFUND = EXTRAS.REFUND,
    BLOCK = EXTRAS.BLOCK,
    BUCKET = function(o, req) req.bucket_ms = parse_bucket_ms(option_value(o, 'BUCKET'), req.windows) end,
  }

  local function parse_slide(args)
    local windows, from = parse_windows(args, slide_max_limit)
    return check_extras(parse_options(args, from, { windows = windows, cost = 1 }, SLIDE_OPTIONS, unknown_option))
  end

  function slide(key, args, record)
    if args[3] == nil then
      local verdict = slide_exact_plain(key, args, record)
      if verdict then return verdict end
    end
    local req = parse_slide(args)
    check_mode(req, record)
    if req.bucket_ms then
      if record and req.refund then return bucket_refund(key, req) end
      return slide_bucketed(key, req, record, nil)
    end
    if record and req.refund then return slide_exact_refund(key, req, server_ms()) end
    return slide_exact(key, req, record, server_ms())
  end
end

-- WINLIMIT.FIXED (src/core/fixed.rs, src/redis/adapters/fixed.rs) -------------------------------

local fixed
do
  local FIXED_MAX_LIMIT = 1000000000000

  local function fixed_max_limit()
    return FIXED_MAX_LIMIT
  end

  local FIXED_OPTIONS = {
    COST = EXTRAS.COST,
    REFUND = EXTRAS.REFUND,
    BLOCK = EXTRAS.BLOCK,
    ALIGN = function(o, req)
      once(o, 'ALIGN')
      req.align = true
    end,
  }

  local function parse_fixed(args)
    local windows, from = parse_windows(args, fixed_max_limit)
    if #windows > 1 then
      fail('ERR WINLIMIT.FIXED takes one window_ms limit pair')
    end
    local req = { window_ms = windows[1].window_ms, limit = windows[1].limit, cost = 1, align = false }
    return check_extras(parse_options(args, from, req, FIXED_OPTIONS, unknown_option))
  end

  -- The counter (nil when missing): a canonical non-negative integer, as INCRBY takes it.
  local function read_counter(key)
    local value = typed('GET', key)
    if not value then return nil end
    local count = parse_int(value)
    if count == nil or count < 0 then
      fail('ERR value is not an integer or out of range')
    end
    return { count = count, expires_at = expires_at(key) }
  end

  -- A counter above every limit is a block (fixed.rs BLOCKED): every call is rejected until the
  -- key expires, and it is told apart from a full window.
  local FIXED_BLOCKED = FIXED_MAX_LIMIT + 1

  -- The counter's own decision at now: the verdict, the window's end, whether it records.
  local function fixed_count(req, record, live, now)
    local window_end
    if live and live.expires_at then
      window_end = live.expires_at
    elseif req.align then
      window_end = (idiv(now, req.window_ms) + 1) * req.window_ms
    else
      window_end = now + req.window_ms
    end
    local time_left = exact(window_end - now, 'the expiry of this key')
    local count = live and live.count or 0
    local never = req.cost > req.limit
    local allowed = not never and count + req.cost <= req.limit
    local records = allowed and record
    local count_after = records and count + req.cost or count
    local retry = allowed and 0 or (never and NEVER or time_left)
    local verdict = { allowed and 1 or 0, req.limit, remaining(req.limit, count_after), retry,
      count_after > 0 and time_left or 0 }
    if live and live.count > FIXED_MAX_LIMIT then verdict = while_blocked(verdict, now, window_end) end
    return verdict, window_end, records
  end

  local function fixed_write(key, req, live, records, window_end)
    local missing_expiry = live ~= nil and live.expires_at == nil
    if records and live == nil then
      set_with_expiry(key, fmt(req.cost), window_end)
    elseif records then
      if req.cost == 1 then write(key, 'INCR', key) else write(key, 'INCRBY', key, fmt(req.cost)) end
      if missing_expiry then write(key, 'PEXPIREAT', key, fmt(window_end)) end
    elseif missing_expiry then
      write(key, 'PEXPIREAT', key, fmt(window_end))
    end
  end

  -- REFUND n: the live counter down by n, not below 0, its expiry kept (INCRBY -by); a blocked
  -- or missing one is left as it is. The reply is the peek of cost 1 that follows.
  local function fixed_refund(key, req, live, now)
    if live and live.count > 0 and live.count <= FIXED_MAX_LIMIT then
      local count = max(live.count - req.refund, 0)
      write(key, 'INCRBY', key, fmt(count - live.count))
      live = { count = count, expires_at = live.expires_at }
    end
    local peek = { window_ms = req.window_ms, limit = req.limit, cost = 1, align = req.align }
    return (fixed_count(peek, false, live, now))
  end

  -- The common call, `window_ms limit` alone, on a live counter or a missing key: no tables
  -- and no TIME. PTTL is the window's time left by the server's clock (the module's
  -- window_end - now), and a new counter expires by SET ... PX window_ms, at now + window_ms
  -- (Redis 7.0+ replicates it as PXAT; 6.x as PX, which a replica would count from its own
  -- clock: there a new counter takes the full path). Nil when the call needs the full path
  -- (an argument out of range, limit 0, a counter without expiry or blocked or not
  -- canonical): it then reads the key again.
  local function fixed_plain(key, args, record)
    local w, limit = arg_int(args[1]), arg_int(args[2])
    if w == nil or w < 1 or w > MAX_WINDOW_MS or limit == nil or limit < 1 or limit > FIXED_MAX_LIMIT then
      return nil
    end
    local value = typed('GET', key)
    if not value then
      if not record then return { 1, limit, limit, 0, 0 } end
      if not HAS_EXPIRETIME then return nil end
      write(key, 'SET', key, '1', 'PX', args[1])
      return { 1, limit, limit - 1, 0, w }
    end
    local count = parse_int(value)
    if count == nil or count < 0 or count > FIXED_MAX_LIMIT then return nil end
    local left = call('PTTL', key)
    if left <= 0 then return nil end
    if count >= limit then return { 0, limit, 0, left, count > 0 and left or 0 } end
    if record then
      write(key, 'INCR', key)
      count = count + 1
    end
    return { 1, limit, limit - count, 0, count > 0 and left or 0 }
  end

  function fixed(key, args, record)
    if args[3] == nil then
      local verdict = fixed_plain(key, args, record)
      if verdict then return verdict end
    end
    local req = parse_fixed(args)
    check_mode(req, record)
    local stored = read_counter(key)
    local now = server_ms()
    local live = stored
    if stored and stored.expires_at and stored.expires_at <= now then live = nil end
    if record and req.refund then return fixed_refund(key, req, live, now) end
    local verdict, window_end, records = fixed_count(req, record, live, now)
    local blocked = live and live.count > FIXED_MAX_LIMIT
    local till = not blocked and block_starts(verdict, record, req, now)
    if till then
      -- One expiry holds the block and the window: the later end.
      local expire_at = max(till, window_end)
      set_with_expiry(key, fmt(FIXED_BLOCKED), expire_at)
      return while_blocked(verdict, now, expire_at)
    end
    if record then fixed_write(key, req, live, records, window_end) end
    return verdict
  end
end

-- WINLIMIT.GCRA (src/core/gcra.rs, src/redis/adapters/gcra.rs) ------------------------------

local gcra
do
  local GCRA_MAX = 1000000000000

  local function in_range(value, name, lo, hi)
    local v = arg_int(value)
    if v == nil or v < lo or v > hi then range_error(name, lo, hi) end
    return v
  end

  -- min(10^12 * limit / period_ms, 10^12), rounded down, exactly: a full refill within 10^12 ms.
  local function max_burst(limit, period_ms)
    if limit >= period_ms then return GCRA_MAX end
    if limit * GCRA_MAX < EXACT then return idiv(limit * GCRA_MAX, period_ms) end
    return (mul_div(limit, GCRA_MAX, period_ms))
  end

  local GCRA_OPTIONS = {
    BURST = function(o, req) req.burst = option_value(o, 'BURST') end, -- checked once the limit is known
    COST = EXTRAS.COST,
    REFUND = EXTRAS.REFUND,
    BLOCK = EXTRAS.BLOCK,
  }

  -- GCRA takes no pairs: every other word is an unknown option.
  local function unknown_word(word)
    fail("ERR unknown option '" .. printable(word) .. "'")
  end

  local function parse_gcra(args)
    if #args < 2 then range_error('period_ms', 1, MAX_WINDOW_MS) end
    local req = { period_ms = in_range(args[1], 'period_ms', 1, GCRA_MAX), limit = in_range(args[2], 'limit', 1, GCRA_MAX), cost = 1 }
    check_extras(parse_options(args, 3, req, GCRA_OPTIONS, unknown_word))
    -- Without BURST, the limit: a full refill of `limit` units takes period_ms <= 10^12 ms.
    req.burst = req.burst and in_range(req.burst, 'BURST', 1, max_burst(req.limit, req.period_ms)) or req.limit
    return req
  end

  -- The stored TAT `gcra:<ms>:<rem>:<den>`, or blocked `gcra:<ms>:<rem>:<den>:<end_ms>` (also
  -- returned, any i64); anything else is refused.
  -- `limit_text` is the call's limit as given (canonical, as parsed): a state written with the
  -- same limit, the common case, needs its den not parsed.
  -- The least number written with n digits and no leading zero (0 for one digit).
  local LEAST_OF_DIGITS = { 0 }
  for n = 2, 15 do LEAST_OF_DIGITS[n] = 10 ^ (n - 1) end

  local function decode_tat(value, limit, limit_text)
    local ms, rem, den = match(value, '^gcra:(%d+):(%d+):(%d+)$')
    -- Mostly: digits alone, written with this limit, without leading zeros (n digits make at
    -- least 10^(n-1)), far below 2^53. Arithmetic reads digits as tonumber does, cheaper.
    if den == limit_text and #ms < 16 and #rem < 16 then
      local m, r = ms + 0, rem + 0
      if m >= LEAST_OF_DIGITS[#ms] and r >= LEAST_OF_DIGITS[#rem] and r < limit then return m, r, limit, nil end
    end
    ms, rem, den = match(value, '^gcra:([^:]*):([^:]*):([^:]*)$')
    local till = true
    if not ms then
      ms, rem, den, till = value:match('^gcra:([^:]*):([^:]*):([^:]*):([^:]*)$')
      till = till and parse_int(till)
    end
    ms, rem = ms and parse_int(ms), rem and parse_int(rem)
    if den == limit_text then den = limit else den = den and parse_int(den) end
    if not (ms and rem and den and till) or den < 1 or den > GCRA_MAX or rem < 0 or rem >= den then
      fail('ERR this key holds no GCRA state')
    end
    return ms, rem, den, till ~= true and till or nil
  end

  -- Amounts of time in units of 1 / limit ms pass 2^53 when the limit is large (a TAT's ms *
  -- limit, BURST * period_ms), so GCRA keeps each as a pair (q, r): q * limit + r, with
  -- 0 <= r < limit. q counts whole ms and stays far below 2^53 (every GCRA time lies within a
  -- few 10^12 ms of now), r below 10^12: both exact in doubles, whatever the limit.

  -- floor(a * b / c) and its remainder, exactly, for 0 <= a, b < 2^53 and 0 < c <= 10^12,
  -- when the quotient is below 2^53 (the caller knows it is).
  local function mul_div_any(a, b, c)
    local ab = a * b
    if ab < EXACT then
      local q = floor(ab / c)
      return q, ab - q * c
    end
    local aq = floor(a / c)
    local q, r = mul_div(a - aq * c, b, c)
    return aq * b + q, r
  end

  local function add(q1, r1, q2, r2, l)
    local q, r = q1 + q2, r1 + r2
    if r >= l then return q + 1, r - l end
    return q, r
  end

  local function subtract(q1, r1, q2, r2, l)
    local q, r = q1 - q2, r1 - r2
    if r < 0 then return q - 1, r + l end
    return q, r
  end

  local function at_most(q1, r1, q2, r2)
    return q1 < q2 or (q1 == q2 and r1 <= r2)
  end

  -- In whole ms, rounded up.
  local function ceil_ms(q, r)
    return r > 0 and q + 1 or q
  end

  -- How far the TAT lies ahead of now, as a pair (0 when it has passed); a TAT written with
  -- another limit is rounded up, as the module reads it.
  local function debt_of(ms, rem, den, now, l)
    if exact(ms, 'the TAT of this key') < now then return 0, 0 end
    local q = ms - now
    if den == l then return q, rem end
    local part, r = mul_div(rem, l, den)
    if r > 0 then part = part + 1 end
    if part >= l then return q + 1, part - l end
    return q, part
  end

  -- Whole units of room in the capacity (cq, cr) less the debt (q, r): at most burst.
  local function whole_units(cq, cr, q, r, l, p, burst)
    q, r = subtract(cq, cr, q, r, l)
    if q < 0 then return 0 end
    -- floor((q * l + r) / p): where the double estimate passes burst + 1, it is burst.
    if q * l / p >= burst + 1 then return burst end
    local wq, wr = mul_div_any(q, l, p)
    return min(wq + floor((wr + r) / p), burst)
  end

  -- The bucket's own decision for a debt (q, r), at limit l, period_ms p, BURST burst and
  -- COST cost: the verdict and the debt after it.
  local function gcra_bucket(l, p, burst, cost, record, q, r)
    local cq, cr = mul_div_any(burst, p, l)
    if cost > burst then
      return { 0, burst, whole_units(cq, cr, q, r, l, p, burst), NEVER, ceil_ms(q, r) }, q, r
    end
    local kq, kr = mul_div_any(cost, p, l)
    local nq, nr = add(q, r, kq, kr, l)
    local allowed = at_most(nq, nr, cq, cr)
    local retry = 0
    if allowed then
      if record then q, r = nq, nr end
    else
      retry = ceil_ms(subtract(nq, nr, cq, cr, l))
    end
    return { allowed and 1 or 0, burst, whole_units(cq, cr, q, r, l, p, burst), retry, ceil_ms(q, r) }, q, r
  end

  -- SET the TAT now + debt (args[2], the limit's canonical text, its den), expiring when the
  -- TAT has come, with the block's end when one is set.
  local function gcra_store(key, args, q, r, now, till)
    local ms = now + q
    local value = format('gcra:%d:%d:%s', ms, r, args[2])
    if till then value = value .. ':' .. fmt(till) end
    set_with_expiry(key, value, r ~= 0 and ms + 1 or ms)
  end

  -- n * period_ms as a pair, for a refund's n (any i64: beyond 2^53 from its text, in two
  -- parts), or nil when it surely exceeds the debt's dq whole ms.
  local function refund_units(req, dq)
    local n, p, l = req.refund, req.period_ms, req.limit
    if n * p / l >= dq + 2 then return nil end
    if n < EXACT then return mul_div_any(n, p, l) end
    local text = req.refund_text
    local hq, hr = mul_div_any(tonumber(sub(text, 1, -10)), p, l)
    local sq, sr = mul_div(hr, 1000000000, l)
    local lq, lr = mul_div_any(tonumber(sub(text, -9)), p, l)
    return add(hq * 1000000000 + sq, sr, lq, lr, l)
  end

  -- REFUND n: the TAT back by n emission intervals, never before now (a full bucket: the key
  -- goes); a block in force is left as it is. The reply is the peek of cost 1 that follows.
  local function gcra_refund(key, args, req, q, r, blocked_until, now)
    if not blocked_until and (q > 0 or r > 0) then
      local nq, nr = refund_units(req, q)
      if nq then q, r = subtract(q, r, nq, nr, req.limit) end
      if nq == nil or q < 0 or (q == 0 and r == 0) then
        q, r = 0, 0
        write(key, 'DEL', key)
      else
        gcra_store(key, args, q, r, now, nil)
      end
    end
    local verdict = gcra_bucket(req.limit, req.period_ms, req.burst, 1, false, q, r)
    return blocked_until and while_blocked(verdict, now, blocked_until) or verdict
  end

  -- BLOCK: the TAT pushed so that the next unit arrives when the block ends (block_ms ms and
  -- burst - 1 emission intervals ahead), or kept where it lies further.
  local function blocked_debt(req, q, r)
    local pq, pr = mul_div_any(req.burst - 1, req.period_ms, req.limit)
    pq = pq + req.block_ms
    if at_most(pq, pr, q, r) then return q, r end
    return pq, pr
  end

  -- gcra_store's value and expiry for the common call, with one format where the TAT falls on
  -- a whole ms (a period the limit divides: its text is also the expiry's).
  local function gcra_plain_store(key, limit_text, tat, part)
    if part ~= 0 or first_write_guard or not HAS_EXPIRETIME then
      set_with_expiry(key, format('gcra:%d:%d:%s', tat, part, limit_text), part ~= 0 and tat + 1 or tat)
      return
    end
    local at = format('%d', tat)
    rcall('SET', key, 'gcra:' .. at .. ':0:' .. limit_text, 'PXAT', at)
  end

  -- The common call, `period_ms limit` alone (BURST = limit, COST 1), on a missing key or a
  -- state without a block: no table for the request. Nil when the call needs the full path
  -- (an argument out of range, a block): it then reads the key again.
  local function gcra_plain(key, args, record)
    local p, l = arg_int(args[1]), arg_int(args[2])
    if p == nil or p < 1 or p > GCRA_MAX or l == nil or l < 1 or l > GCRA_MAX then return nil end
    local value = typed('GET', key)
    local ms, rem, den, till
    if value then
      ms, rem, den, till = decode_tat(value, l, args[2])
      if till then return nil end
    end
    local now = server_ms()
    local q, r = 0, 0
    if value then q, r = debt_of(ms, rem, den, now, l) end
    if q > p or (l + 1) * (p + 1) >= EXACT then
      local verdict, aq, ar = gcra_bucket(l, p, l, 1, record, q, r)
      if verdict[1] == 1 and record then gcra_store(key, args, aq, ar, now, nil) end
      return verdict
    end
    -- Every amount below 2^53 (the debt is at most p ms, the capacity l * p units): doubles,
    -- and x / d rounded down as (x - x % d) / d, exact there.
    local capacity, debt = l * p, q * l + r
    local debt_after = debt + p
    if debt_after > capacity then
      local room = capacity - debt
      local over = debt_after - capacity
      local reset = debt % l > 0 and (debt - debt % l) / l + 1 or debt / l
      return { 0, l, room > 0 and (room - room % p) / p or 0, over % l > 0 and (over - over % l) / l + 1 or over / l,
        reset }
    end
    if not record then debt_after = debt end
    local room = capacity - debt_after
    local whole, part = (debt_after - debt_after % l) / l, debt_after % l
    if record then gcra_plain_store(key, args[2], now + whole, part) end
    local units = (room - room % p) / p
    return { 1, l, units < l and units or l, 0, part > 0 and whole + 1 or whole }
  end

  function gcra(key, args, record)
    if args[3] == nil then
      local verdict = gcra_plain(key, args, record)
      if verdict then return verdict end
    end
    local req = parse_gcra(args)
    check_mode(req, record)
    local value = typed('GET', key) or nil
    local ms, rem, den, till
    if value then ms, rem, den, till = decode_tat(value, req.limit, args[2]) end
    local now = server_ms()
    local q, r = 0, 0
    if value then q, r = debt_of(ms, rem, den, now, req.limit) end
    local blocked_until = till and till > now and till or nil
    if record and req.refund then return gcra_refund(key, args, req, q, r, blocked_until, now) end
    local verdict, aq, ar = gcra_bucket(req.limit, req.period_ms, req.burst, req.cost, record, q, r)
    if blocked_until then return while_blocked(verdict, now, blocked_until) end
    local block_till = block_starts(verdict, record, req, now)
    if block_till then
      q, r = blocked_debt(req, q, r)
      gcra_store(key, args, q, r, now, block_till)
      return while_blocked((gcra_bucket(req.limit, req.period_ms, req.burst, req.cost, false, q, r)), now, block_till)
    end
    if verdict[1] == 1 and record then gcra_store(key, args, aq, ar, now, nil) end
    return verdict
  end
end

-- Entry points --------------------------------------------------------------------------------

do
  -- name -> the module command it answers, the algorithm, whether it records.
  local FUNCTIONS = {
    winlimit_slide = { 'winlimit.slide', slide, true },
    winlimit_slide_ro = { 'winlimit.slide_ro', slide, false },
    winlimit_fixed = { 'winlimit.fixed', fixed, true },
    winlimit_fixed_ro = { 'winlimit.fixed_ro', fixed, false },
    winlimit_gcra = { 'winlimit.gcra', gcra, true },
    winlimit_gcra_ro = { 'winlimit.gcra_ro', gcra, false },
  }

  -- One call: the module's arity rule (the key and at least two arguments), then the algorithm;
  -- every error is replied as the module words it.
  local function run(entry, keys, args)
    if #keys ~= 1 or #args < 2 then
      fail("ERR wrong number of arguments for '" .. entry[1] .. "' command")
    end
    return entry[2](keys[1], args, entry[3])
  end

  local function serve(entry, keys, args)
    if floor == nil then bind_globals() end
    local ok, result = protected(run, entry, keys, args)
    if ok then return result end
    if type(result) == 'table' and (result.winlimit_error or result.err) then
      return redis.error_reply(result.winlimit_error or result.err)
    end
    local refused = server_refusal(result)
    if refused then
      return redis.error_reply(refused)
    end
    return redis.error_reply('ERR winlimit library internal error: ' .. tostring(result))
  end

  local NAMES = { 'winlimit_slide', 'winlimit_slide_ro', 'winlimit_fixed', 'winlimit_fixed_ro', 'winlimit_gcra',
    'winlimit_gcra_ro' }

  if redis.register_function then
    for i = 1, #NAMES do
      local entry = FUNCTIONS[NAMES[i]]
      redis.register_function {
        function_name = NAMES[i],
        callback = function(keys, args) return serve(entry, keys, args) end,
        flags = entry[3] and {} or { 'no-writes' },
      }
    end
    redis.register_function {
      function_name = 'winlimit_version',
      callback = function() return VERSION end,
      flags = { 'no-writes' },
    }
  else
    -- A script (Redis 6.x, EVALSHA): ARGV[1] names the function, the rest are its arguments.
    if redis.replicate_commands then redis.replicate_commands() end
    local name = ARGV[1]
    if name == 'winlimit_version' then return VERSION end
    local entry = FUNCTIONS[name]
    if entry == nil then
      return redis.error_reply("ERR unknown winlimit function '" .. printable(tostring(name)) .. "'")
    end
    local args = {}
    for i = 2, #ARGV do args[i - 1] = ARGV[i] end
    first_write_guard = 'string'
    return serve(entry, KEYS, args)
  end
end
