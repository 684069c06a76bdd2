"""Before and after, for docs/migration/scripts.md: the rate limits of the seed posts
(/work/shared/seeds/, "3 SMS per hour per user" and "100 pages a minute per user") as they wrote
them with redis-py, and the one winlimit call that replaces each. examples/tests/test_migration.py
runs both on a real Redis."""

import time

# --8<-- [start:incr-before]
def allowed_incr_expire(r, user):
    """Before: INCR, then EXPIRE on the first hit. A crash between the two leaves a counter that
    never expires, and the user is locked out for good."""
    key = f"rate.limiting:{user}"
    count = r.incr(key)
    if count == 1:
        r.expire(key, 60)
    return count <= 100
# --8<-- [end:incr-before]


# --8<-- [start:incr-after]
def allowed_fixed(limiter, user):
    """After: one call; the counter and its expiry are set together (a counter left without a
    TTL is healed on the next call)."""
    return limiter.fixed(f"rate.limiting:{user}", 60_000, 100).allowed
# --8<-- [end:incr-after]


# --8<-- [start:zset-before]
def allowed_zset_pipeline(r, user):
    """Before: a sliding hour as a sorted-set log in a pipeline. Two clients can both see room
    (the check and the write are separate), the times are each app server's clock, and a
    rejected request is recorded too, so a client that keeps trying never gets back in."""
    key, now_ms = f"sms:{user}", int(time.time() * 1000)
    pipe = r.pipeline()
    pipe.zremrangebyscore(key, 0, now_ms - 3_600_000)
    pipe.zadd(key, {str(now_ms): now_ms})
    pipe.zcard(key)
    pipe.expire(key, 3600)
    _, _, count, _ = pipe.execute()
    return count <= 3
# --8<-- [end:zset-before]


# --8<-- [start:lua-before]
SLIDING_LOG = """
local key, now, window, limit = KEYS[1], tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', key, 0, now - window)
if redis.call('ZCARD', key) >= limit then return 0 end
redis.call('ZADD', key, now, now)
redis.call('PEXPIRE', key, window)
return 1
"""


def allowed_lua(r, user):
    """Before: the same log in a Lua script: atomic, but on the caller's clock, and two requests
    in the same millisecond are one member."""
    return r.eval(SLIDING_LOG, 1, f"sms:{user}", int(time.time() * 1000), 3_600_000, 3) == 1
# --8<-- [end:lua-before]


# --8<-- [start:slide-after]
def allowed_slide(limiter, user):
    """After, for both: one exact call on the server's clock; a rejected request records
    nothing. It reads the sorted sets those scripts wrote, so keys switch over live."""
    return limiter.slide(f"sms:{user}", 3_600_000, 3).allowed
# --8<-- [end:slide-after]

