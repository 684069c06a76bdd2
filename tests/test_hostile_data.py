"""Keys prepared with core commands to hold anything a user could write: every command on
them answers a verdict or an error, the server stays up, an error leaves the key unchanged,
and what a verdict writes reaches a replica without the module and an AOF replay
identically."""

import redis

from kit import commands
from kit.bucket_layout import encode as bucket_ring
from kit.errors import error_of
from kit.keyspace import pexpiretime, set_pxat, snapshot
from kit.server import wait_replica_offset


W = 60_000
BIG = 2**63  # one past i64
I64_MAX = 2**63 - 1


def prepare(r):
    """Every hostile key, written with core commands."""
    now = r.time()[0] * 1000
    r.zadd("z:inf", {"a": float("inf"), "b": float("-inf"), "c": now})
    r.zadd("z:frac", {"a": now - 0.5, "b": now + 0.25, "c": 1.5})
    r.zadd("z:huge", {"a": 1e300, "b": -1e300, "1000000000": now, "2147483647": now})
    r.zadd("z:bigmember", {"x" * 1_000_000: now})
    r.zadd("z:large", {str(i): now - i for i in range(50_000)})
    for name, value in [("s:bytes", b"\x00\xff\r\n gcra:1"), ("s:007", "007"), ("s:-0", "-0"), ("s:00", "00"),
                        ("s:padded", "000000000000000000001"), ("s:over", str(BIG)), ("s:neg", "-5"),
                        ("s:gcra-bad", "gcra:1:5:3"), ("s:gcra-den", "gcra:1:0:0"), ("s:gcra-text", "gcra:x:y:z"),
                        ("s:gcra-far", f"gcra:{2**62}:0:1"), ("s:gcra-past", "gcra:-99999999999:0:7"),
                        ("s:empty", "")]:
        r.set(name, value)
    s = now // 1000 * 1000
    good = dict(bucket_ms=1000, buckets={s: 3}, slots=1)
    r.hset("h:text", mapping={"field": "value", "other": "x"})
    r.hset("h:old-layout", mapping={"bucket_ms": 1000, "total": 3, "oldest": s, "newest": s, str(s): 3})
    r.set("r:good", bucket_ring(**good))
    r.set("r:overflow", bucket_ring(1000, {s: I64_MAX}, slots=1))
    r.set("r:huge-total", bucket_ring(**good, total=2**62))
    r.set("r:far", bucket_ring(1000, {0: 1, 10**15: 1}, slots=4))
    r.set("r:far-slots", bucket_ring(1000, {s - 3_000_000: 1, s: 1}, slots=3001))
    r.set("r:negative", bucket_ring(1000, {s: -3}, slots=1, total=3))
    r.set("r:stale", bucket_ring(1000, {s - 4000: 5, s: 3}, slots=2, oldest=s, total=3))
    r.set("r:torn", bucket_ring(**good)[:-3])
    r.set("r:marker-only", b"wlbucket")
    # Sequence members at and past the 32-bit wrap, members that are not 10 digits, a future score.
    r.zadd("z:wrap", {"4294967295": now - 2, "4294967294": now - 3})
    r.zadd("z:seq-big", {"9999999999": now, "99999999999": now - 1})
    r.zadd("z:seq-odd", {"-1": now, "0999999999": now - 1, "+1000000001": now - 2, "": now - 3})
    r.zadd("z:future", {"1000000000": now + 10**12})
    for name, value in [("s:max", str(2**63 - 1)), ("s:min", str(-2**63)), ("s:gcra-huge-den", f"gcra:{now}:1:{2**64}"),
                        ("s:gcra-rem", f"gcra:{now}:9:3"), ("s:gcra-neg", f"gcra:{now}:-1:3"),
                        ("s:gcra-extra", f"gcra:{now}:0:3:4"), ("s:gcra-007", "gcra:007:0:3")]:
        r.set(name, value)
    r.set("r:bucket0", bucket_ring(**good).replace(bucket_ring(**good)[8:16], bytes(8), 1))
    r.set("r:misaligned", bucket_ring(1000, {s + 1: 1}, slots=1))
    r.set("r:order", bucket_ring(1000, {s: 3, s + 1000: 1}, slots=2, oldest=s + 1000, newest=s))
    r.set("r:neg-total", bucket_ring(**good, total=-3))
    r.rpush("l:list", "a")
    r.sadd("t:set", "a")
    # Half the keys carry an expiry, so "unchanged" covers the expiry too. Absolute: Redis 6.2
    # replicates a relative PEXPIRE as such, and its replica would count from its own clock.
    for key in sorted(r.keys())[::2]:
        r.pexpireat(key, now + 3_600_000)


# Every hostile call of every row of the kit's table.
COMMANDS = [(c.name.upper(), *args) for c in commands.DEFAULT for args in c.hostile]


def test_every_row_of_the_kits_table_has_hostile_calls():
    assert all(c.hostile for c in commands.DEFAULT), [c.name for c in commands.DEFAULT if not c.hostile]


def test_every_command_on_every_hostile_key(start_server):
    master = start_server(args=["--appendonly", "yes"])
    replica = start_server(module=False, args=["--replicaof", "127.0.0.1", str(master.port)])
    replica.wait_replica_synced()
    r = master.client
    prepare(r)
    verdicts = errors = 0
    for key in sorted(r.keys()):
        for command, *args in COMMANDS:
            before = snapshot_of(r, key)
            try:
                reply = r.execute_command(command, key, *args)
            except redis.ResponseError as e:
                errors += 1
                assert str(e) and "internal error" not in str(e), (key, command, e)
                assert snapshot_of(r, key) == before, (key, command)
            else:
                verdicts += 1
                assert len(reply) == 5 and reply[0] in (0, 1), (key, command, reply)
            assert r.ping()
    print(f"hostile data: {verdicts} verdicts, {errors} errors over {len(COMMANDS)} commands")
    assert verdicts > 0 and errors > 0
    assert r.execute_command("WAIT", 1, 5000) == 1
    wait_replica_offset(master, replica)
    expected = snapshot(r, dump=True)
    assert snapshot(replica.client, dump=True) == expected
    master.restart(module=False)
    assert snapshot(master.client, dump=True) == expected


# Counters INCRBY refuses (it reads integers as Redis writes them, within i64), or that a
# count cannot be: FIXED refuses them too, with INCRBY's error, and leaves them untouched.
REFUSED_COUNTERS = ["007", "-0", "00", "000000000000000000001", str(BIG), "+5", " 5", "5 ", "1.5", "", "-5",
                    "\x005"]
FIXED_CALLS = [("WINLIMIT.FIXED", W, 10), ("WINLIMIT.FIXED_RO", W, 10), ("WINLIMIT.FIXED", W, 10, "ALIGN"),
               ("WINLIMIT.FIXED", W, 10, "COST", 3), ("WINLIMIT.FIXED", W, 0)]
NOT_AN_INTEGER = "ERR value is not an integer or out of range"


def test_fixed_refuses_a_counter_incrby_would_refuse_and_leaves_it_untouched(start_server):
    master = start_server()
    replica = start_server(module=False, args=["--replicaof", "127.0.0.1", str(master.port)])
    replica.wait_replica_synced()
    r = master.client
    refused = 0
    expiry = r.time()[0] * 1000 + 3_600_000  # absolute: Redis 6.2 replicates PX as it is
    for i, value in enumerate(REFUSED_COUNTERS):
        set_pxat(r, f"c:{i}:ttl", value, expiry)
        r.set(f"c:{i}:none", value)
        for key in (f"c:{i}:ttl", f"c:{i}:none"):
            before = snapshot_of(r, key)
            for command, *args in FIXED_CALLS:
                assert error_of(master.port, command, key, *args) == NOT_AN_INTEGER, (value, command, args)
                assert snapshot_of(r, key) == before, (value, command, args)
                refused += 1
        if value != "-5":  # INCRBY takes -5; a count cannot be negative
            assert error_of(master.port, "INCRBY", f"c:{i}:none", 1) == NOT_AN_INTEGER, value
    print(f"hostile counters: {len(REFUSED_COUNTERS)} values, {refused} FIXED calls refused, keys untouched")
    assert r.execute_command("WAIT", 1, 5000) == 1
    wait_replica_offset(master, replica)
    assert snapshot(replica.client, dump=True) == snapshot(r, dump=True)


def snapshot_of(r, key):
    return r.dump(key), pexpiretime(r, key)
