"""WINLIMIT.GCRA: a token bucket of BURST units refilled at limit per period_ms, kept as
one exact TAT in a string."""

import time

import pytest

from kit.commands import call
from kit.errors import error_of
from kit.keyspace import pexpiretime, server_ms, snapshot


NO_GCRA = "ERR this key holds no GCRA state"
NOT_INTEGER = "ERR value is not an integer or out of range"
WRONGTYPE = "WRONGTYPE Operation against a key holding the wrong kind of value"


def gcra(r, key, *args):
    return call(r, "gcra", key, *args)


def test_a_burst_then_rejection_with_the_wait_for_one_unit(r):
    before = server_ms(r)
    replies = [gcra(r, "k", 60000, 10, "BURST", 3) for _ in range(4)]
    elapsed = server_ms(r) - before
    assert [x.allowed for x in replies] == [1, 1, 1, 0]
    assert [x.remaining for x in replies] == [2, 1, 0, 0]
    assert all(x.limit == 3 for x in replies)
    # One unit comes back every 6 s; the three taken return 18 s after the first call, less
    # the time between the first call and the fourth.
    assert 6000 - elapsed <= replies[3].retry_after <= 6000
    assert 18000 - elapsed <= replies[3].reset_after <= 18000


def test_units_come_back_at_the_refill_rate(r):
    for _ in range(2):
        gcra(r, "k", 200, 2)
    rejected = gcra(r, "k", 200, 2)
    assert rejected.allowed == 0 and 0 < rejected.retry_after <= 100
    time.sleep(rejected.retry_after / 1000 + 0.01)
    assert gcra(r, "k", 200, 2).allowed == 1


def test_cost_takes_several_units(r):
    assert gcra(r, "k", 60000, 10, "COST", 4)[:3] == (1, 10, 6)
    assert gcra(r, "k", 60000, 10, "COST", 7)[:3] == (0, 10, 6)


def test_burst_smaller_than_limit_caps_the_bucket(r):
    assert [gcra(r, "k", 60000, 100, "BURST", 2).allowed for _ in range(3)] == [1, 1, 0]


def test_burst_larger_than_limit_allows_a_bigger_first_burst(r):
    started = server_ms(r)
    replies = [gcra(r, "k", 60000, 2, "BURST", 5) for _ in range(6)]
    elapsed = server_ms(r) - started
    assert [x.allowed for x in replies] == [1] * 5 + [0]
    # One emission interval (30 s) after the burst, less the time the six calls took.
    assert 30000 - elapsed <= replies[-1].retry_after <= 30000


def test_a_cost_above_the_burst_never_fits(r):
    assert gcra(r, "k", 60000, 10, "BURST", 3, "COST", 4) == (0, 3, 3, -1, 0)
    assert not r.exists("k")


def test_read_only_variant_answers_without_taking(r):
    gcra(r, "k", 60000, 10, "COST", 3)
    before = snapshot(r, dump=True)
    assert call(r, "gcra_ro", "k", 60000, 10)[:3] == (1, 10, 7)
    assert call(r, "gcra_ro", "k", 60000, 10, "COST", 8)[:3] == (0, 10, 7)
    assert call(r, "gcra_ro", "new", 60000, 10)[:3] == (1, 10, 10)
    assert snapshot(r, dump=True) == before


def test_the_stored_value_is_an_exact_tat_expiring_when_the_bucket_is_full(r):
    before = server_ms(r)
    reply = gcra(r, "k", 1000, 3)  # one unit per 333.33... ms
    after = server_ms(r)
    prefix, ms, rem, den = r.get("k").decode().split(":")
    assert (prefix, rem, den) == ("gcra", "1", "3")
    assert before + 333 <= int(ms) <= after + 333
    assert pexpiretime(r, "k") == int(ms) + 1
    assert reply.reset_after == 334


def test_the_key_vanishes_exactly_when_the_bucket_is_full_again(r):
    reply = gcra(r, "k", 300, 3)
    assert r.exists("k")
    time.sleep(reply.reset_after / 1000 + 0.02)
    assert not r.exists("k")
    assert gcra(r, "k", 300, 3)[:3] == (1, 3, 2)


def test_fixed_and_gcra_keys_refuse_each_other_untouched(server, r):
    call(r, "fixed", "counter", 60000, 10)
    gcra(r, "bucket", 60000, 10)
    r.set("text", "hello")
    before = snapshot(r, dump=True)
    for key in ("counter", "text"):
        assert error_of(server.port, "WINLIMIT.GCRA", key, 60000, 10) == NO_GCRA
        assert error_of(server.port, "WINLIMIT.GCRA_RO", key, 60000, 10) == NO_GCRA
    assert error_of(server.port, "WINLIMIT.FIXED", "bucket", 60000, 10) == NOT_INTEGER
    assert snapshot(r, dump=True) == before


def test_other_types_are_wrongtype(server, r):
    r.zadd("z", {"m": 1})
    assert error_of(server.port, "WINLIMIT.GCRA", "z", 60000, 10) == WRONGTYPE


@pytest.mark.parametrize("args, error", [
    ([0, 10], "ERR period_ms must be an integer between 1 and 1000000000000"),
    ([10**12 + 1, 10], "ERR period_ms must be an integer between 1 and 1000000000000"),
    ([1000, 0], "ERR limit must be an integer between 1 and 1000000000000"),
    ([1000, "ten"], "ERR limit must be an integer between 1 and 1000000000000"),
    ([1000, 10, "BURST", 0], "ERR BURST must be an integer between 1 and 10000000000"),
    ([10**12, 1, "BURST", 2], "ERR BURST must be an integer between 1 and 1"),
    ([1000, 10, "BURST"], "ERR BURST needs a value"),
    ([1000, 10, "COST", 0], "ERR COST must be a positive integer"),
    ([1000, 10, "COST", 1, "cost", 1], "ERR option 'COST' given more than once"),
    ([1000, 10, "ALIGN"], "ERR unknown option 'ALIGN'"),
    ([1000, 10, 5], "ERR unknown option '5'"),
])
def test_bad_arguments_are_named_and_write_nothing(server, r, args, error):
    gcra(r, "k", 60000, 10)
    before = snapshot(r, dump=True)
    for command in ("WINLIMIT.GCRA", "WINLIMIT.GCRA_RO"):
        assert error_of(server.port, command, "k", *args) == error
        assert error_of(server.port, command, "new", *args) == error
    assert snapshot(r, dump=True) == before


def test_a_huge_cost_replies_minus_one_without_overflow(r):
    assert gcra(r, "k", 1000, 10, "COST", 2**63 - 1)[:4] == (0, 10, 10, -1)
