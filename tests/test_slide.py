"""WINLIMIT.SLIDE: exact sliding-window log in a sorted set."""

import time
import uuid

import pytest

from kit.commands import call
from kit.keyspace import expiry_slack, pexpiretime, server_ms


W = 60000  # long window: nothing leaves it during a test unless the test waits for that


def slide(r, *args):
    return call(r, "slide", *args)


def fixed(r, *args):
    return call(r, "fixed", *args)


def seed(r, key, scores):
    """Entries as the seed scripts write them: ms-timestamp scores, UUID members."""
    r.zadd(key, {str(uuid.uuid4()): s for s in scores})


# ---- reply fields ----

def test_first_call_is_allowed_with_all_fields(r):
    assert slide(r, "k", W, 5) == (1, 5, 4, 0, W)


def test_remaining_counts_down_to_zero(r):
    replies = [slide(r, "k", W, 3) for _ in range(3)]
    assert [x.allowed for x in replies] == [1, 1, 1]
    assert [x.remaining for x in replies] == [2, 1, 0]
    assert [x.retry_after for x in replies] == [0, 0, 0]
    assert [x.limit for x in replies] == [3, 3, 3]


def test_call_over_limit_is_rejected_with_retry_and_reset(r):
    for _ in range(3):
        slide(r, "k", W, 3)
    rep = slide(r, "k", W, 3)
    assert (rep.allowed, rep.limit, rep.remaining) == (0, 3, 0)
    assert 0 < rep.retry_after <= W
    assert 0 < rep.reset_after <= W


def test_accepted_call_resets_after_one_full_window(r):
    now = server_ms(r)
    seed(r, "k", [now - 5000, now - 1000])
    assert slide(r, "k", W, 5) == (1, 5, 2, 0, W)


def test_retry_after_is_oldest_counted_entry_plus_window_minus_now(r):
    now = server_ms(r)
    seed(r, "k", [now - 3000, now - 2000, now - 1000])
    t0 = server_ms(r)
    rep = slide(r, "k", W, 3)
    t1 = server_ms(r)
    assert rep.allowed == 0
    call_now = (now - 3000) + W - rep.retry_after
    assert t0 <= call_now <= t1
    # reset_after is measured from the newest entry, at the same now
    assert rep.reset_after - rep.retry_after == 2000


def test_retry_after_with_cost_uses_the_needed_oldest_entry(r):
    now = server_ms(r)
    seed(r, "k", [now - 3000, now - 2000, now - 1000])
    t0 = server_ms(r)
    rep = slide(r, "k", W, 4, "COST", 3)  # need = 3 + 3 - 4 = 2: the 2nd oldest must leave
    t1 = server_ms(r)
    assert (rep.allowed, rep.remaining) == (0, 1)
    assert t0 <= (now - 2000) + W - rep.retry_after <= t1
    assert rep.reset_after - rep.retry_after == 1000


def test_reset_after_is_zero_when_nothing_counted(r):
    assert call(r, "slide_ro", "k", W, 5).reset_after == 0
    assert slide(r, "k", W, 0).reset_after == 0


# ---- what is stored ----

def test_accepted_call_adds_one_member_scored_with_server_time(r):
    t0 = server_ms(r)
    slide(r, "k", W, 5)
    t1 = server_ms(r)
    [(member, score)] = r.zrange("k", 0, -1, withscores=True)
    assert t0 <= score <= t1
    assert member.isdigit()


FIRST_MEMBER = 1_000_000_000  # members count up from here, within 32 bits


def test_members_count_up_one_per_unit_from_the_first_member(r):
    for _ in range(50):
        slide(r, "k", W, 1000)
    slide(r, "k", W, 1000, "COST", 3)
    members = sorted(int(m) for m in r.zrange("k", 0, -1))
    assert members == list(range(FIRST_MEMBER, FIRST_MEMBER + 53))


def test_members_are_stored_as_compact_integers(r):
    for _ in range(5):
        slide(r, "k", W, 1000)
    assert r.object("encoding", "k") in (b"listpack", b"ziplist")  # ziplist before Redis 7.0
    assert all(m.isdigit() and len(m) == 10 for m in r.zrange("k", 0, -1))


def test_the_next_member_follows_the_newest_member_whoever_wrote_it(r):
    """The sequence lives in the data: after the newest member, whoever wrote it."""
    slide(r, "k", W, 10)
    r.zadd("k", {str(FIRST_MEMBER + 41): server_ms(r)})
    slide(r, "k", W, 10)
    assert int(r.zrange("k", -1, -1)[0]) == FIRST_MEMBER + 42


def test_key_expires_within_a_slack_after_newest_score_plus_window(r):
    slide(r, "k", W, 5)
    slide(r, "k", W, 5)
    newest = r.zrange("k", -1, -1, withscores=True)[0][1]
    assert newest + W <= pexpiretime(r, "k") <= newest + W + expiry_slack(W)


def test_rejected_call_records_nothing(r):
    for _ in range(3):
        slide(r, "k", W, 3)
    before = (r.zrange("k", 0, -1, withscores=True), pexpiretime(r, "k"))
    assert slide(r, "k", W, 3).allowed == 0
    assert (r.zrange("k", 0, -1, withscores=True), pexpiretime(r, "k")) == before


# ---- COST and limits ----

def test_cost_adds_that_many_members(r):
    assert slide(r, "k", W, 10, "COST", 4) == (1, 10, 6, 0, W)
    assert r.zcard("k") == 4


def test_cost_option_is_case_insensitive(r):
    assert slide(r, "k", W, 10, "cost", 2).remaining == 8


def test_cost_above_remaining_is_rejected_and_records_nothing(r):
    slide(r, "k", W, 5, "COST", 4)
    rep = slide(r, "k", W, 5, "COST", 2)
    assert (rep.allowed, rep.remaining) == (0, 1)
    assert rep.retry_after > 0
    assert r.zcard("k") == 4


def test_limit_below_counted_gives_remaining_zero(r):
    for _ in range(5):
        slide(r, "k", W, 10)
    rep = slide(r, "k", W, 3)
    assert (rep.allowed, rep.limit, rep.remaining) == (0, 3, 0)
    scores = [s for _, s in r.zrange("k", 0, -1, withscores=True)]
    # need = 5 + 1 - 3 = 3: the 3rd oldest must leave
    assert rep.reset_after - rep.retry_after == scores[-1] - scores[2]
    assert r.zcard("k") == 5


# ---- stale entries ----

def test_stale_entries_are_removed_on_accepted_call(r):
    now = server_ms(r)
    seed(r, "k", [now - 3 * W, now - W - 1, now - 1000])
    assert slide(r, "k", W, 5).remaining == 3
    scores = [s for _, s in r.zrange("k", 0, -1, withscores=True)]
    assert len(scores) == 2 and scores[0] == now - 1000


def test_stale_entries_are_removed_on_rejected_call(r):
    now = server_ms(r)
    seed(r, "k", [now - 3 * W, now - W - 1, now - 2000, now - 1000])
    assert slide(r, "k", W, 2).allowed == 0
    assert [s for _, s in r.zrange("k", 0, -1, withscores=True)] == [now - 2000, now - 1000]
    assert pexpiretime(r, "k") == now - 1000 + W + expiry_slack(W)


def test_entry_exactly_one_window_old_is_dropped(r):
    """Entries straddle the cutoff now - window; exactly those with score <= cutoff go
    (a quarter of the log has left: enough for a batch)."""
    window = 10000
    now = server_ms(r)
    scores = [now - window - 100 + i for i in range(400)]
    seed(r, "k", scores)
    seeded = set(r.zrange("k", 0, -1))
    rep = slide(r, "k", window, 1000)
    assert rep.allowed == 1
    entries = r.zrange("k", 0, -1, withscores=True)
    [call_now] = [s for m, s in entries if m not in seeded]
    kept = sorted(s for m, s in entries if m in seeded)
    assert kept == [s for s in scores if s > call_now - window]
    assert rep.remaining == 1000 - len(kept) - 1


# ---- keys written by the seed scripts ----

SEED_LUA = """
redis.call('ZREMRANGEBYSCORE', KEYS[1], 0, ARGV[1] - ARGV[2])
local n = redis.call('ZCARD', KEYS[1])
if n < tonumber(ARGV[3]) then
  redis.call('ZADD', KEYS[1], ARGV[1], ARGV[4])
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
return 0
"""


def test_key_written_by_seed_lua_script_is_honoured(r):
    for _ in range(3):
        assert r.eval(SEED_LUA, 1, "k", int(time.time() * 1000), W, 5, str(uuid.uuid4())) == 1
    assert slide(r, "k", W, 5) == (1, 5, 1, 0, W)
    assert slide(r, "k", W, 5).remaining == 0
    assert slide(r, "k", W, 5).allowed == 0
    assert r.zcard("k") == 5


def test_key_written_by_seed_pipeline_is_honoured(r):
    for _ in range(2):
        now = int(time.time() * 1000)
        p = r.pipeline(transaction=False)
        p.zadd("k", {str(uuid.uuid4()): now})
        p.zremrangebyscore("k", 0, now - W)
        p.zcard("k")
        p.expire("k", 3600)
        p.execute()
    assert slide(r, "k", W, 3) == (1, 3, 0, 0, W)
    newest = r.zrange("k", -1, -1, withscores=True)[0][1]
    assert pexpiretime(r, "k") == newest + W + expiry_slack(W)


def test_stale_uuid_entries_from_seed_are_removed_on_write(r):
    now = server_ms(r)
    seed(r, "k", [now - 2 * W, now - W - 500])
    seed(r, "k", [now - 10])
    assert slide(r, "k", W, 5).remaining == 3
    assert r.zcard("k") == 2


# ---- time ----

def test_slide_refuses_what_fixed_allows_across_a_window_boundary(r):
    """The seed's "3 at 1:59 and 3 at 2:01": 3 calls just before an aligned window boundary and
    3 just after. FIXED (ALIGN) accepts all 6 though they are less than a window apart; SLIDE refuses
    the second 3."""
    window = 2000
    for attempt in range(3):
        fk, sk = f"fixed{attempt}", f"slide{attempt}"
        to_boundary = window - server_ms(r) % window
        time.sleep(((to_boundary - 300) % window) / 1000)  # ~300 ms before a boundary
        start = server_ms(r)
        first = [fixed(r, fk, window, 3, "ALIGN") for _ in range(3)]
        first_slide = [slide(r, sk, window, 3) for _ in range(3)]
        assert all(x.allowed for x in first + first_slide)
        if first[-1].reset_after > window // 2:
            continue  # stalled past the boundary: try again
        time.sleep(first[-1].reset_after / 1000 + 0.02)
        second = [fixed(r, fk, window, 3, "ALIGN") for _ in range(3)]
        second_slide = [slide(r, sk, window, 3) for _ in range(3)]
        if server_ms(r) - start >= window:
            continue  # stalled for a whole window: the comparison would prove nothing
        assert [x.allowed for x in second] == [1, 1, 1]
        assert [x.allowed for x in second_slide] == [0, 0, 0]
        return
    pytest.fail("could not place 6 calls within one window around a boundary (machine too slow)")


