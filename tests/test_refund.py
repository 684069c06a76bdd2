"""REFUND n: a recording call gives back up to n units, the most recently recorded first,
and replies what the _RO peek of cost 1 answers right after."""

import pytest

from kit.commands import call
from kit.keyspace import pexpiretime, server_ms


W = 60000  # long enough that nothing leaves a window or refills a unit during a test

# name -> (command, arguments after the key): a limit of 5 in each algorithm.
ALGORITHMS = {
    "log": ("slide", (W, 5)),
    "bucket": ("slide", (W, 5, "BUCKET", 1000)),
    "fixed": ("fixed", (W, 5)),
    "gcra": ("gcra", (W, 5)),
}


def record(r, algorithm, *extra):
    command, args = ALGORITHMS[algorithm]
    return call(r, command, "k", *args, *extra)


def peek(r, algorithm):
    command, args = ALGORITHMS[algorithm]
    return call(r, command + "_ro", "k", *args)


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_a_refund_gives_back_exactly_n_units(r, algorithm):
    for _ in range(4):
        record(r, algorithm)
    reply = record(r, algorithm, "REFUND", 3)
    assert (reply.allowed, reply.remaining) == (1, 4)
    assert [record(r, algorithm).allowed for _ in range(5)] == [1, 1, 1, 1, 0]


def refund_then_peek(r, algorithm, n):
    """The refund's reply and the peek right after it, its times moved to the refund's
    moment (they may lie a few ms apart: bounded by the server's clock around both)."""
    t0 = server_ms(r)
    refunded = record(r, algorithm, "REFUND", n)
    then = peek(r, algorithm)
    elapsed = server_ms(r) - t0
    for field in ("retry_after", "reset_after"):
        moved = getattr(refunded, field) - getattr(then, field)
        assert 0 <= moved <= elapsed or getattr(then, field) == 0 == getattr(refunded, field), field
    return refunded, then._replace(retry_after=refunded.retry_after, reset_after=refunded.reset_after)


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_the_reply_is_the_peek_that_follows(r, algorithm):
    for _ in range(5):
        record(r, algorithm)
    refunded, then = refund_then_peek(r, algorithm, 2)
    assert refunded == then
    assert refunded.remaining == 2


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_a_refund_takes_back_no_more_than_the_key_holds(r, algorithm):
    for _ in range(2):
        record(r, algorithm)
    assert record(r, algorithm, "REFUND", 100).remaining == 5
    assert [record(r, algorithm).allowed for _ in range(6)] == [1, 1, 1, 1, 1, 0]


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_a_refund_on_a_missing_key_changes_nothing_and_replies_as_a_peek(r, algorithm):
    assert record(r, algorithm, "REFUND", 1) == peek(r, algorithm) == (1, 5, 5, 0, 0)
    assert not r.exists("k")


def test_the_exact_log_loses_its_newest_entries(r):
    for _ in range(3):
        record(r, "log")
    oldest = r.zrange("k", 0, 0)
    record(r, "log", "REFUND", 2)
    assert r.zrange("k", 0, -1) == oldest


def test_a_fixed_refund_counts_down_and_keeps_the_expiry(r):
    for _ in range(4):
        record(r, "fixed")
    end = pexpiretime(r, "k")
    record(r, "fixed", "REFUND", 3)
    assert (r.get("k"), pexpiretime(r, "k")) == (b"1", end)
    record(r, "fixed", "REFUND", 3)
    assert r.get("k") == b"0"


def test_a_gcra_refund_never_fills_the_bucket_past_full(r):
    record(r, "gcra")
    assert record(r, "gcra", "REFUND", 100).remaining == 5
    assert not r.exists("k"), "a full bucket is no key"
    assert [record(r, "gcra").allowed for _ in range(6)] == [1, 1, 1, 1, 1, 0]


def test_a_gcra_refund_moves_the_tat_back_by_whole_intervals(r):
    for _ in range(3):
        record(r, "gcra")
    tat = int(r.get("k").split(b":")[1])
    record(r, "gcra", "REFUND", 2)
    assert int(r.get("k").split(b":")[1]) == tat - 2 * (W // 5)
