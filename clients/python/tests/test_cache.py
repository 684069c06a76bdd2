"""cache_rejections=True: a rejected command line is answered locally until its
retry_after_ms ends, counted with the server's INFO commandstats; sync and asyncio alike."""

import time

import pytest

from conftest import sent_as


def calls(r, command):
    """How often the server ran `command` (as this run's backend sends it)."""
    return r.info("commandstats").get(f"cmdstat_{sent_as(command)}", {}).get("calls", 0)


@pytest.fixture
def caching(make_limiter, r):
    return make_limiter(cache_rejections=True)


def cache_of(limiter):
    return getattr(limiter, "limiter", limiter).rejections  # the asyncio flavour's is wrapped


def test_a_thousand_identical_rejections_reach_redis_once(caching, r):
    caching.gcra("k", 60_000, 1)
    before = calls(r, "winlimit.gcra")
    decisions = [caching.gcra("k", 60_000, 1) for _ in range(1000)]
    assert calls(r, "winlimit.gcra") - before == 1
    assert not any(d.allowed for d in decisions)
    assert [d.cached for d in decisions] == [False] + [True] * 999
    retries = [d.retry_after_ms for d in decisions]
    assert retries == sorted(retries, reverse=True) and min(retries) >= 1
    assert all(d.limit == 1 and d.remaining == 0 and d.policies == decisions[0].policies for d in decisions)


def test_the_first_call_after_the_entry_ends_reaches_redis_and_is_accepted(caching, r):
    caching.gcra("k", 300, 1)
    rejected = caching.gcra("k", 300, 1)
    assert not rejected.allowed and not rejected.cached
    time.sleep(rejected.retry_after_ms / 1000)
    before = calls(r, "winlimit.gcra")
    decision = caching.gcra("k", 300, 1)
    assert decision.allowed and not decision.cached
    assert calls(r, "winlimit.gcra") - before == 1


@pytest.mark.parametrize("other", [
    lambda lim: lim.gcra("k", 60_000, 1, cost=2),
    lambda lim: lim.gcra("k2", 60_000, 1),
    lambda lim: lim.gcra("k", 60_000, 1, burst=1),
])
def test_another_command_line_is_not_answered_from_the_cache(caching, r, other):
    caching.gcra("k", 60_000, 1)
    caching.gcra("k", 60_000, 1)
    before = calls(r, "winlimit.gcra")
    assert not other(caching).cached
    assert calls(r, "winlimit.gcra") - before == 1


def test_a_rejection_no_retry_can_end_is_not_cached(caching, r):
    before = calls(r, "winlimit.gcra")
    for _ in range(3):
        assert caching.gcra("k", 60_000, 1, cost=2).retry_after_ms == -1
    assert calls(r, "winlimit.gcra") - before == 3


def test_peeks_are_never_answered_from_the_cache_nor_stored(caching, r):
    caching.gcra("k", 60_000, 1)
    caching.gcra("k", 60_000, 1)
    before = calls(r, "winlimit.gcra_ro")
    peeks = [caching.gcra("k", 60_000, 1, peek=True) for _ in range(3)]
    assert calls(r, "winlimit.gcra_ro") - before == 3
    assert not any(p.cached for p in peeks)


def test_the_cache_never_holds_more_than_its_size(make_limiter, r):
    limiter = make_limiter(cache_rejections=True, cache_size=3)
    for i in range(6):
        limiter.slide(f"k{i}", 60_000, 1)
        assert not limiter.slide(f"k{i}", 60_000, 1).allowed
        assert len(cache_of(limiter)) == min(i + 1, 3)
    before = calls(r, "winlimit.slide")
    assert limiter.slide("k5", 60_000, 1).cached  # the newest stayed
    assert not limiter.slide("k0", 60_000, 1).cached  # the oldest went first
    assert calls(r, "winlimit.slide") - before == 1


def test_a_limiter_without_the_cache_sends_every_call(limiter, r):
    limiter.gcra("k", 60_000, 1)
    before = calls(r, "winlimit.gcra")
    for _ in range(5):
        assert not limiter.gcra("k", 60_000, 1).cached
    assert calls(r, "winlimit.gcra") - before == 5
