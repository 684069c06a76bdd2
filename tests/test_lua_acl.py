"""The ACL rules docs/getting-started/managed.md ("Without the module") gives a limited user are enough for every
function, and no more is needed; without +time the library refuses with an error that says
the server clock was refused, never falling back to another clock."""

import redis

from kit import editions
from kit.lua_library import Library
from kit.server import REDIS_62

pytestmark = editions.module_only("it loads the library itself: one run, in the module edition")

HOUR = 3_600_000
# docs/getting-started/managed.md, "Without the module", word for word (Redis 6.x has no PEXPIRETIME, and ACL refuses
# the name; FIXED on a live counter reads the time left with PTTL everywhere).
READS = ("+time +type +pttl" if REDIS_62 else "+time +type +pexpiretime +pttl") + \
    " +get +zcard +zcount +zrange +zrangebyscore +zrevrange"
WRITES = "+set +incr +incrby +bitfield +zadd +zrem +zremrangebyscore +del +pexpireat"
CALLS = "+evalsha" if REDIS_62 else "+fcall +fcall_ro"
CALLS_RO = "+evalsha" if REDIS_62 else "+fcall_ro"
CALLS_EVERY = [("winlimit.slide", (HOUR, 5)), ("winlimit.slide", (HOUR, 5, "BUCKET", 3600)),
               ("winlimit.fixed", (HOUR, 5)), ("winlimit.gcra", (HOUR, 5))]


def user_client(server, name, rules):
    server.client.execute_command("ACL", "SETUSER", name, "reset", "on", ">pw", "~rl:*", *rules.split())
    return server.new_client(username=name, password="pw")


def test_a_user_with_the_readme_rules_runs_every_function(server, r):
    library = Library(r, scripts=REDIS_62)
    limited = user_client(server, "limiter", f"{CALLS} {READS} {WRITES}")
    for command, args in CALLS_EVERY:
        for _ in range(2):  # a new key, then a key to update
            assert library.call(limited, command, "rl:" + command + str(len(args)), *args)[0] == 1
        assert library.call(limited, command + "_ro", "rl:" + command + str(len(args)), *args)[2] == 3


def test_a_user_with_the_readme_rules_refunds_and_blocks(server, r):
    library = Library(r, scripts=REDIS_62)
    limited = user_client(server, "limiter", f"{CALLS} {READS} {WRITES}")
    for command, args in CALLS_EVERY:
        key = "rl:extras:" + command + str(len(args))
        for _ in range(3):
            library.call(limited, command, key, *args)
        assert library.call(limited, command, key, *args, "REFUND", 1)[:3] == [1, 5, 3]
        assert library.call(limited, command, key, *args, "COST", 3)[0] == 1
        assert library.call(limited, command, key, *args, "BLOCK", 10 * HOUR)[:4] == [0, 5, 0, 10 * HOUR]


def test_a_read_only_user_peeks_with_the_read_rules(server, r):
    library = Library(r, scripts=REDIS_62)
    library.call(r, "winlimit.gcra", "rl:g", HOUR, 5)
    reader = user_client(server, "reader", f"{CALLS_RO} {READS}")
    assert library.call(reader, "winlimit.gcra_ro", "rl:g", HOUR, 5)[2] == 4


def test_without_time_the_call_fails_saying_the_server_clock_was_refused(server, r):
    library = Library(r, scripts=REDIS_62)
    no_clock = user_client(server, "noclock", f"{CALLS} {READS} {WRITES} -time")
    try:
        # SLIDE reads the clock (FIXED on a live counter need not: PTTL is its time left).
        library.call(no_clock, "winlimit.slide", "rl:f", HOUR, 5)
    except redis.ResponseError as e:
        assert "refused TIME" in str(e) and "never falls back" in str(e), e
    else:
        raise AssertionError("the call answered without the server clock")
    assert r.exists("rl:f") == 0
