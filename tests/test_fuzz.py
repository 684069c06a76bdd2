"""Random argument vectors against a real server: every call gets a well-formed reply or
an error line, the server stays up, and nothing but logs and counters is ever written.

The run is seeded and short here; `make fuzz` runs it long (WINLIMIT_FUZZ_CALLS).
"""

import os
import random

import redis

CALLS = int(os.environ.get("WINLIMIT_FUZZ_CALLS", "3000"))
FOREIGN = [b"list", b"hash", b"text"]
# Each family has its own limiter key; both also hit keys of other types.
KEYS = {
    "WINLIMIT.SLIDE": [b"log", b"counter"] + FOREIGN,
    "WINLIMIT.SLIDE_RO": [b"log", b"counter"] + FOREIGN,
    "WINLIMIT.FIXED": [b"counter"] + FOREIGN,
    "WINLIMIT.FIXED_RO": [b"counter", b"log"] + FOREIGN,
}


def random_word(rng):
    choices = [
        lambda: str(rng.randint(-3, 3)),
        lambda: str(rng.choice([0, 1, 2, 10, 999, 10**12, 10**12 + 1, 2**63 - 1, 2**63, -2**63])),
        lambda: rng.choice(["COST", "cost", "ALIGN", "align", "BURST", "", " ", "1.5", "+1", "-0"]),
        lambda: bytes(rng.randrange(256) for _ in range(rng.randint(0, 8))),
        lambda: "9" * rng.randint(1, 40),
    ]
    return rng.choice(choices)()


def test_random_calls_always_get_a_reply_and_keep_the_server_up(r):
    rng = random.Random(20261122)
    r.rpush("list", "x")
    r.hset("hash", "f", "v")
    r.set("text", "not a number")
    seen_ok = seen_err = 0
    pipe = r.pipeline(transaction=False)
    for _ in range(CALLS):
        command = rng.choice(list(KEYS))
        args = [command, rng.choice(KEYS[command])] + [random_word(rng) for _ in range(rng.randint(0, 6))]
        pipe.execute_command(*args)
    for reply in pipe.execute(raise_on_error=False):
        if isinstance(reply, redis.ResponseError):
            seen_err += 1
        else:
            assert isinstance(reply, list) and len(reply) == 5, reply
            allowed, limit, remaining, retry, reset = reply
            assert allowed in (0, 1) and 0 <= remaining <= limit and retry >= -1 and reset >= 0
            seen_ok += 1
    assert r.ping()
    assert seen_ok > 0 and seen_err > 0
    # Foreign keys are untouched; limiter keys hold what their command writes.
    assert r.lrange("list", 0, -1) == [b"x"]
    assert r.hgetall("hash") == {b"f": b"v"}
    assert r.get("text") == b"not a number"
    # A counter whose short window ran out is a missing key, which SLIDE may make a log.
    assert r.type("counter") in (b"string", b"zset", b"none")
    if r.type("counter") == b"string":
        assert int(r.get("counter")) >= 0
    assert r.type("log") in (b"zset", b"none")
    for key in (b"log", b"counter"):
        if r.type(key) == b"zset":
            members = r.zrange(key, 0, -1)
            assert len(members) == len(set(members))
            assert all(1_000_000_000 <= int(m) <= 2**31 - 1 for m in members)
