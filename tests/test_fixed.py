"""WINLIMIT.FIXED: fixed-window counter in a string key."""

from kit.commands import call
from kit.keyspace import pexpiretime, server_ms, set_pxat



W = 60000  # long window: nothing expires during a test unless the test waits for that


def fixed(r, *args):
    return call(r, "fixed", *args)


# ---- reply fields and stored counter ----

def test_first_call_is_allowed_with_all_fields(r):
    assert fixed(r, "k", W, 5) == (1, 5, 4, 0, W)


def test_first_call_sets_count_and_window_end(r):
    t0 = server_ms(r)
    fixed(r, "k", W, 5, "COST", 2)
    t1 = server_ms(r)
    assert r.get("k") == b"2"
    assert t0 + W <= pexpiretime(r, "k") <= t1 + W


def test_accepted_calls_increment_within_the_same_window(r):
    replies = [fixed(r, "k", W, 5) for _ in range(3)]
    end = pexpiretime(r, "k")
    assert [x.remaining for x in replies] == [4, 3, 2]
    assert r.get("k") == b"3"
    fixed(r, "k", W, 5)
    assert pexpiretime(r, "k") == end


def test_reset_after_is_time_to_window_end(r):
    fixed(r, "k", W, 5)
    t0 = server_ms(r)
    rep = fixed(r, "k", W, 5)
    t1 = server_ms(r)
    assert t0 <= pexpiretime(r, "k") - rep.reset_after <= t1


def test_call_over_limit_is_rejected_and_does_not_count(r):
    for _ in range(3):
        fixed(r, "k", W, 3)
    rep = fixed(r, "k", W, 3)
    assert (rep.allowed, rep.limit, rep.remaining) == (0, 3, 0)
    assert r.get("k") == b"3"


def test_rejected_retry_after_is_time_left_in_window(r):
    for _ in range(3):
        fixed(r, "k", W, 3)
    t0 = server_ms(r)
    rep = fixed(r, "k", W, 3)
    t1 = server_ms(r)
    assert rep.retry_after == rep.reset_after
    assert t0 <= pexpiretime(r, "k") - rep.retry_after <= t1


def test_existing_counter_with_ttl_is_counted(r):
    r.set("k", 3, px=W)  # the seed's INCR + EXPIRE
    end = pexpiretime(r, "k")
    assert fixed(r, "k", W, 5).remaining == 1
    assert r.get("k") == b"4"
    assert pexpiretime(r, "k") == end


# ---- COST and limits ----

def test_cost_increments_by_cost(r):
    assert fixed(r, "k", W, 10, "COST", 4) == (1, 10, 6, 0, W)
    fixed(r, "k", W, 10, "cost", 3)
    assert r.get("k") == b"7"


def test_cost_above_remaining_is_rejected_and_records_nothing(r):
    fixed(r, "k", W, 5, "COST", 4)
    rep = fixed(r, "k", W, 5, "COST", 2)
    assert (rep.allowed, rep.remaining) == (0, 1)
    assert rep.retry_after > 0
    assert r.get("k") == b"4"


def test_limit_below_count_gives_remaining_zero(r):
    r.set("k", 10, px=W)
    rep = fixed(r, "k", W, 3)
    assert (rep.allowed, rep.limit, rep.remaining) == (0, 3, 0)
    assert 0 < rep.retry_after <= W
    assert r.get("k") == b"10"


# ---- ALIGN ----

def test_align_ends_window_at_a_multiple_of_window(r):
    for window in (123456789, 999999937, 10**12):  # ends far away: the key cannot expire mid-test
        t0 = server_ms(r)
        rep = fixed(r, f"k{window}", window, 5, "ALIGN")
        t1 = server_ms(r)
        end = pexpiretime(r, f"k{window}")
        assert end % window == 0
        assert t0 < end <= t1 + window
        assert t0 <= end - rep.reset_after <= t1


def test_align_option_is_case_insensitive(r):
    fixed(r, "k", 123456789, 5, "align")
    assert pexpiretime(r, "k") % 123456789 == 0


def test_align_keeps_an_existing_window_end(r):
    end = server_ms(r) + 12345
    if end % W == 0:
        end += 1
    set_pxat(r, "k", 1, end)
    assert fixed(r, "k", W, 5, "ALIGN").allowed == 1
    assert pexpiretime(r, "k") == end
    assert r.get("k") == b"2"


# ---- counters without TTL (the seed's "dead counter") ----

def test_counter_without_ttl_gets_a_ttl(r):
    r.set("k", 2)
    t0 = server_ms(r)
    assert fixed(r, "k", W, 5) == (1, 5, 2, 0, W)
    t1 = server_ms(r)
    assert r.get("k") == b"3"
    assert t0 + W <= pexpiretime(r, "k") <= t1 + W


def test_counter_without_ttl_gets_an_aligned_ttl_with_align(r):
    r.set("k", 2)
    fixed(r, "k", 123456789, 5, "ALIGN")
    assert pexpiretime(r, "k") % 123456789 == 0


def test_counter_without_ttl_is_healed_by_a_rejected_call(r):
    r.set("k", 9)
    assert fixed(r, "k", W, 5).allowed == 0
    assert r.get("k") == b"9"
    assert 0 < r.pttl("k") <= W


# ---- time ----


