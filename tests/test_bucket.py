"""WINLIMIT.SLIDE ... BUCKET ms: a sliding window counted per bucket, in a string ring of
buckets whose size does not grow with the limit."""

import time

import pytest

from kit import editions
from kit.server import REDIS_60, REDIS_62
from kit.aof import APPEND_ONLY, aof_bytes, aof_commands, rewrite_done
from kit.bucket_layout import bucket_log, encode as bucket_ring
from kit.commands import call
from kit.errors import error_of
from kit.keyspace import expiry_slack, pexpiretime, server_ms, snapshot
from kit.support import KeyEvents, wait_until


W = 60000
B = 1000
WRONGTYPE = "WRONGTYPE Operation against a key holding the wrong kind of value"


def bucket(r, key, *args):
    return call(r, "slide", key, *args, "BUCKET", B)


def start_of(ms, b=B):
    return ms // b * b


# ---- accept, reject, retry, expiry ----

def test_accepts_up_to_the_limit_then_rejects(r):
    replies = [bucket(r, "k", W, 3) for _ in range(4)]
    assert [x.allowed for x in replies] == [1, 1, 1, 0]
    assert [x.remaining for x in replies] == [2, 1, 0, 0]
    assert replies[-1].limit == 3


def test_a_new_key_holds_its_bookkeeping_and_one_bucket(r):
    before = server_ms(r)
    bucket(r, "k", W, 10, "COST", 4)
    stored = bucket_log(r, "k")
    s = stored["newest"]
    assert s in (start_of(before), start_of(before) + B)  # the call may land in the next bucket
    assert stored == {"bucket_ms": B, "total": 4, "oldest": s, "newest": s, "slots": 1, "buckets": {s: 4}}


def test_the_ring_holds_what_the_calls_recorded_as_buckets_open(r):
    window, b = 2000, 100
    recorded = 0
    for _ in range(6):
        recorded += call(r, "slide", "k", window, 100, "BUCKET", b).allowed
        time.sleep(0.11)
    stored = bucket_log(r, "k")
    assert sum(stored["buckets"].values()) == stored["total"] == recorded == 6
    assert len(stored["buckets"]) >= 5 and stored["slots"] >= len(stored["buckets"])


def test_reset_and_retry_follow_the_bucket_end(r):
    bucket(r, "k", W, 1)
    after = server_ms(r)
    reply = bucket(r, "k", W, 1)
    s = bucket_log(r, "k")["newest"]
    # The bucket starting at s counts until s + B - 1 + W.
    assert reply.allowed == 0
    assert s + B - 1 + W - server_ms(r) <= reply.retry_after <= s + B - 1 + W - after
    assert reply.retry_after == reply.reset_after


def test_a_retry_at_retry_after_is_accepted(r):
    window, b = 400, 100
    for _ in range(2):
        call(r, "slide", "k", window, 2, "BUCKET", b)
    rejected = call(r, "slide", "k", window, 2, "BUCKET", b)
    assert rejected.allowed == 0 and 0 < rejected.retry_after <= window + b
    time.sleep(rejected.retry_after / 1000 + 0.02)
    assert call(r, "slide", "k", window, 2, "BUCKET", b).allowed == 1


def test_the_key_expires_when_its_newest_bucket_leaves_the_window(r):
    window, b = 300, 100
    reply = call(r, "slide", "k", window, 5, "BUCKET", b)
    s = bucket_log(r, "k")["newest"]
    assert s + b - 1 + window <= pexpiretime(r, "k") <= s + b - 1 + window + expiry_slack(window)
    time.sleep((reply.reset_after + expiry_slack(window)) / 1000 + 0.02)
    assert r.exists("k") == 0


def test_several_windows_are_all_or_nothing(r):
    for _ in range(3):
        bucket(r, "k", 2000, 3, W, 100)
    before = snapshot(r, dump=True)
    reply = bucket(r, "k", 2000, 3, W, 100)
    assert (reply.allowed, reply.limit, reply.remaining) == (0, 3, 0)
    assert snapshot(r, dump=True) == before


def test_several_windows_bind_the_pair_with_least_remaining(r):
    assert bucket(r, "a", 2000, 100, W, 2)[:3] == (1, 2, 1)
    assert bucket(r, "b", 2000, 2, W, 100)[:3] == (1, 2, 1)


def test_read_only_variant_writes_nothing(r):
    bucket(r, "k", W, 2)
    before = snapshot(r, dump=True)
    assert call(r, "slide_ro", "k", W, 2, "BUCKET", B)[:3] == (1, 2, 1)
    assert call(r, "slide_ro", "new", W, 2, "BUCKET", B)[:3] == (1, 2, 2)
    assert snapshot(r, dump=True) == before


# ---- bounded size ----

def test_a_huge_limit_and_cost_answer_quickly_in_a_small_key(r):
    r.config_set("slowlog-log-slower-than", 0)
    r.slowlog_reset()
    assert call(r, "slide", "k", W, 10**6, "BUCKET", B, "COST", 10**6)[:3] == (1, 10**6, 0)
    sent = editions.sent_command("WINLIMIT.SLIDE").encode()
    took = [e["duration"] for e in r.slowlog_get(10) if e["command"].startswith(sent)]
    r.config_set("slowlog-log-slower-than", 10000)
    assert took and took[0] < 10000, took
    assert r.memory_usage("k") < 512


def test_sixty_one_occupied_buckets_take_under_two_kilobytes(r):
    now = server_ms(r)
    first = start_of(now) - 60 * B
    r.set("k", bucket_ring(B, {first + i * B: 7 for i in range(61)}, slots=61))
    reply = bucket(r, "k", W, 10**6)
    assert reply.allowed == 1
    assert len(bucket_log(r, "k")["buckets"]) >= 61 - 1
    assert r.memory_usage("k") < 2048


# ---- what the key may hold ----

def test_a_changed_bucket_length_is_refused_and_the_key_untouched(server, r):
    bucket(r, "k", W, 5)
    before = snapshot(r, dump=True)
    assert error_of(server.port, "WINLIMIT.SLIDE", "k", W, 5, "BUCKET", 500) == \
        "ERR BUCKET 500 differs from the BUCKET 1000 this key was written with"
    assert snapshot(r, dump=True) == before


def test_bucket_on_a_sorted_set_or_hash_and_none_on_a_bucketed_key_are_wrongtype(server, r):
    call(r, "slide", "log", W, 5)
    bucket(r, "ring", W, 5)
    r.hset("hash", "f", "v")
    for key in ("log", "hash"):
        assert error_of(server.port, "WINLIMIT.SLIDE", key, W, 5, "BUCKET", B) == WRONGTYPE
    assert error_of(server.port, "WINLIMIT.SLIDE", "ring", W, 5) == WRONGTYPE
    assert error_of(server.port, "WINLIMIT.SLIDE_RO", "ring", W, 5) == WRONGTYPE


def hostile(now):
    s = start_of(now)
    good = dict(bucket_ms=B, buckets={s: 2}, slots=1)
    ring = bucket_ring(**good)
    not_ours = "the string is not a bucketed log"
    return {
        "a counter": (b"12", not_ours),
        "a GCRA state": (b"gcra:1763812345000:0:1", not_ours),
        "another marker": (b"wlbuckex" + ring[8:], not_ours),
        "a torn slot": (ring[:-8], not_ours),
        "no slot": (ring[:40], not_ours),
        "zero total": (bucket_ring(**good, total=0), "total is not positive"),
        "oldest off grid": (bucket_ring(**good, oldest=s + 1), "oldest and newest are not bucket starts in order"),
        "newest before oldest": (bucket_ring(**good, oldest=s + B, newest=s),
                                 "oldest and newest are not bucket starts in order"),
        "a span beyond its slots": (bucket_ring(**good, oldest=s - B), "its buckets span more slots than it holds"),
        "negative bucket": (bucket_ring(B, {s: -2}, slots=1, total=2), f"bucket {s} holds -2, not a count"),
        "zero bucket_ms": (b"wlbucket" + bytes(8) + ring[16:], "bucket_ms is not positive"),
    }


@pytest.mark.parametrize("case", list(hostile(0)))
def test_a_string_winlimit_did_not_write_is_an_error_and_untouched(server, r, case):
    value, what = hostile(server_ms(r))[case]
    r.set("k", value)
    before = snapshot(r, dump=True)
    assert error_of(server.port, "WINLIMIT.SLIDE", "k", W, 5, "BUCKET", B) == \
        f"ERR this key holds what winlimit does not write: {what}"
    # A peek reads only what its verdict needs (here maybe no bucket), and writes nothing.
    peek = error_of(server.port, "WINLIMIT.SLIDE_RO", "k", W, 5, "BUCKET", B)
    assert peek in (None, f"ERR this key holds what winlimit does not write: {what}")
    assert snapshot(r, dump=True) == before


def test_an_expired_key_reads_as_empty_whatever_its_bucket(r):
    r.set("k", bucket_ring(7, {0: 1}, slots=1))
    r.pexpireat("k", server_ms(r) + 50)
    time.sleep(0.1)
    assert bucket(r, "k", W, 5)[:3] == (1, 5, 4)


# ---- effects: events, replication ----

def test_events_are_those_of_set_pxat_then_bitfield(server, r):
    server.client.config_set("notify-keyspace-events", "KEA")
    ev = KeyEvents(server.new_client())
    try:
        assert ev.events(lambda: bucket(r, "k", W, 5)) == [("set", "k"), ("expire", "k")]
        # The same bucket again (or the next one, whose slot the ring grows for: both editions
        # store the grown ring as SET ... PXAT with the key's expiry, which Redis announces as
        # set and expire; the module's WriteKey::set_string_expiring notifies the same two).
        grown = [("set", "k"), ("expire", "k")]
        assert ev.events(lambda: bucket(r, "k", W, 5)) in ([("setbit", "k")], grown)
    finally:
        ev.close()
        server.client.config_set("notify-keyspace-events", "")


def test_a_steady_accepted_call_replicates_one_bitfield(start_server):
    s = start_server(args=APPEND_ONLY)
    r = s.client
    wait_until(lambda: rewrite_done(r), what="the AOF to be written directly, no rewrite under way")
    # Ten calls within one bucket boundary of the first (a loaded machine may stretch them
    # over more, each boundary a bucket that may grow the ring): tried again until they are.
    for _ in range(20):
        bucket(r, "k", W, 10**6)
        first = server_ms(r)
        size = aof_bytes(s)
        for _ in range(10):
            bucket(r, "k", W, 10**6)
        if server_ms(r) // B - first // B <= 1:
            break
    commands = [c for c in aof_commands(s, size) if c not in ("MULTI", "EXEC", "SELECT")]
    if REDIS_60:  # SET has no PXAT there: a grown ring's expiry follows its SET as PEXPIREAT
        commands = [c for i, c in enumerate(commands) if not (c == "PEXPIREAT" and commands[i - 1:i] == ["SET"])]
    # One BITFIELD per call; a call that opens the next bucket grows the ring: one SET.
    assert len(commands) == 10 and set(commands) <= {"BITFIELD", "SET"} and commands.count("SET") <= 1, commands
    if not REDIS_62:  # Redis 6.2 wraps whatever a module call replicates in MULTI/EXEC
        assert "MULTI" not in aof_commands(s, size)
    per_call = (aof_bytes(s) - size) / 10
    assert 0 < per_call < 120 + (29 if REDIS_62 else 0), per_call

