"""WINLIMIT.SLIDE with several window_ms limit pairs: one atomic check of every pair, one
record, and a reply that describes the pair that binds."""

from kit.commands import call
from kit.keyspace import expiry_slack, pexpiretime, server_ms, snapshot
from kit.ready import wait_until


SHORT, LONG = 300, 60000


def slide(r, *args):
    return call(r, "slide", *args)


def test_ten_per_second_and_a_hundred_per_minute(r):
    """The eleventh call within a second is refused by the second-long pair, and records
    nothing in the minute: the minute's count stays at ten."""
    replies = [slide(r, "k", 1000, 10, 60000, 100) for _ in range(11)]
    assert [x.allowed for x in replies] == [1] * 10 + [0]
    assert [x.remaining for x in replies[:10]] == list(range(9, -1, -1))
    rejected = replies[-1]
    assert (rejected.limit, rejected.remaining) == (10, 0)
    assert 0 < rejected.retry_after <= 1000
    assert r.zcard("k") == 10
    assert call(r, "slide_ro", "k", 60000, 100)[:3] == (1, 100, 90)


def test_ten_per_short_window_and_fifteen_per_long_window(r):
    pairs = (SHORT, 10, LONG, 15)
    replies = [slide(r, "k", *pairs) for _ in range(11)]
    last_call = server_ms(r)
    assert [x.allowed for x in replies] == [1] * 10 + [0]
    # The short pair binds the rejection: its room comes back first-in-line.
    rejected = replies[-1]
    assert (rejected.limit, rejected.remaining) == (10, 0)
    assert 0 < rejected.retry_after <= SHORT
    # Until all ten have left the short window (a loaded machine spreads the calls out).
    wait_until(lambda: server_ms(r) > last_call + SHORT, what="the short window to pass")
    replies = [slide(r, "k", *pairs) for _ in range(6)]
    assert [x.allowed for x in replies] == [1] * 5 + [0]
    # Now the long pair is full: it binds, and its room comes back a long window later.
    rejected = replies[-1]
    assert (rejected.limit, rejected.remaining) == (15, 0)
    assert LONG - 5000 < rejected.retry_after <= LONG


def test_a_rejection_by_one_pair_records_nothing(r):
    for _ in range(3):
        slide(r, "k", SHORT, 100, LONG, 3)
    before = snapshot(r, dump=True)
    assert slide(r, "k", SHORT, 100, LONG, 3).allowed == 0
    assert snapshot(r, dump=True) == before
    assert r.zcard("k") == 3


def test_accepted_reply_describes_the_pair_with_least_remaining(r):
    assert slide(r, "k", SHORT, 2, LONG, 100) == (1, 2, 1, 0, SHORT)
    assert slide(r, "j", SHORT, 100, LONG, 2) == (1, 2, 1, 0, LONG)


def test_equal_remaining_binds_the_longer_window(r):
    assert slide(r, "k", SHORT, 5, LONG, 5) == (1, 5, 4, 0, LONG)


def test_a_cost_above_a_limit_binds_that_pair_with_minus_one(r):
    assert slide(r, "k", SHORT, 2, LONG, 100, "COST", 3) == (0, 2, 2, -1, 0)
    assert not r.exists("k")


def test_the_longest_of_several_too_small_limits_binds(r):
    reply = slide(r, "k", 100, 2, SHORT, 1, LONG, 100, "COST", 3)
    assert (reply.limit, reply.retry_after) == (1, -1)


def test_pairs_may_come_in_any_order(r):
    assert slide(r, "a", LONG, 100, SHORT, 2) == slide(r, "b", SHORT, 2, LONG, 100)


def test_entries_live_for_the_largest_window(r):
    before = server_ms(r)
    slide(r, "k", SHORT, 10, LONG, 100)
    after = server_ms(r)
    assert before + LONG <= pexpiretime(r, "k") <= after + LONG + expiry_slack(LONG)


def test_read_only_variant_checks_every_pair_and_writes_nothing(r):
    for _ in range(2):
        slide(r, "k", SHORT, 2, LONG, 100)
    before = snapshot(r, dump=True)
    reply = call(r, "slide_ro", "k", SHORT, 2, LONG, 100)
    assert (reply.allowed, reply.limit, reply.remaining) == (0, 2, 0)
    assert 0 < reply.retry_after <= SHORT
    assert call(r, "slide_ro", "k", SHORT, 5, LONG, 100)[:3] == (1, 5, 3)
    assert snapshot(r, dump=True) == before


def test_one_pair_replies_exactly_as_before(r):
    assert slide(r, "k", LONG, 3) == (1, 3, 2, 0, LONG)


def test_eight_pairs_are_accepted(r):
    pairs = [x for i in range(1, 9) for x in (i * 1000, i)]
    assert slide(r, "k", *pairs) == (1, 1, 0, 0, 1000)
    assert slide(r, "k", *pairs)[:2] == (0, 1)
