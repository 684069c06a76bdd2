"""winlimit.memory.Limiter: the Redis limiter's methods and decisions in this process, and its
bounded memory. Its decisions are checked call by call against the module's in
test_spec_decisions.py; here, what the methods add and how keys are dropped."""

import time

import pytest
import redis

import winlimit
import winlimit.memory


class Clock:
    """The time the test says it is, in ms."""

    def __init__(self, now=1_700_000_000_000):
        self.now = now

    def __call__(self):
        return self.now


def test_methods_give_the_redis_limiters_decisions_marked_memory():
    limiter = winlimit.memory.Limiter(clock=Clock())
    d = limiter.slide("k", [(1_000, 2), (60_000, 5)], cost=2)
    assert (d.allowed, d.limit, d.remaining, d.backend) == (True, 2, 0, "memory")
    assert [p.name for p in d.policies] == ["winlimit-1s", "winlimit-60s"]
    assert d.headers()["RateLimit"] == '"winlimit-1s";r=0;t=1'


def test_peeks_record_nothing():
    limiter = winlimit.memory.Limiter(clock=Clock())
    for _ in range(3):
        assert limiter.gcra("k", 1_000, 10, burst=1, peek=True).allowed
    assert limiter.gcra("k", 1_000, 10, burst=1).allowed
    assert not limiter.gcra("k", 1_000, 10, burst=1).allowed


def test_fixed_align_ends_the_window_at_the_next_multiple():
    clock = Clock(now=3_600_000 * 100 + 1_234)
    d = winlimit.memory.Limiter(clock=clock).fixed("k", 3_600_000, 3, align=True)
    assert d.reset_after_ms == 3_600_000 - 1_234


def test_bad_arguments_raise_the_modules_error():
    limiter = winlimit.memory.Limiter(clock=Clock())
    with pytest.raises(redis.ResponseError, match="^limit must be an integer between 1 and 1000000000000$"):
        limiter.gcra("k", 1_000, 0)


def test_a_key_of_another_kind_is_refused():
    limiter = winlimit.memory.Limiter(clock=Clock())
    limiter.fixed("k", 1_000, 3)
    with pytest.raises(redis.ResponseError, match="^WRONGTYPE"):
        limiter.slide("k", 1_000, 3)


def test_a_rejected_call_on_a_new_key_keeps_nothing():
    limiter = winlimit.memory.Limiter(clock=Clock())
    assert not limiter.slide("k", 1_000, 0).allowed
    assert len(limiter) == 0


def test_idle_keys_are_dropped_once_their_windows_have_passed():
    clock = Clock()
    limiter = winlimit.memory.Limiter(clock=clock)
    for i in range(100):
        limiter.slide(f"idle-{i}", 1_000, 5)
    limiter.gcra("busy", 60_000, 1_000_000)
    clock.now += 1_000  # every idle key's window has passed; busy's bucket is not full yet
    for _ in range(101):
        limiter.gcra("busy", 60_000, 1_000_000)
    assert len(limiter) == 1


def test_a_key_whose_windows_passed_starts_afresh():
    clock = Clock()
    limiter = winlimit.memory.Limiter(clock=clock)
    assert limiter.slide("k", 1_000, 1).allowed
    clock.now += 999
    assert not limiter.slide("k", 1_000, 1).allowed
    clock.now += 1
    assert limiter.slide("k", 1_000, 1).remaining == 0


def test_at_most_max_keys_are_kept_the_least_recently_used_out_first():
    limiter = winlimit.memory.Limiter(clock=Clock(), max_keys=3)
    for key in ("a", "b", "c"):
        assert limiter.fixed(key, 60_000, 1).allowed
    assert not limiter.fixed("a", 60_000, 1).allowed  # "a" is now the most recently used
    assert limiter.fixed("d", 60_000, 1).allowed  # "b" goes
    assert len(limiter) == 3
    assert limiter.fixed("b", 60_000, 1).allowed  # forgotten: a new window ("c" goes)
    assert not limiter.fixed("a", 60_000, 1).allowed
    assert not limiter.fixed("d", 60_000, 1).allowed


def test_max_keys_defaults_to_100_000():
    assert winlimit.memory.Limiter().max_keys == 100_000


def test_reset_forgets_the_key_and_its_cached_rejections():
    limiter = winlimit.memory.Limiter(clock=Clock(), cache_rejections=True)
    limiter.slide("k", 60_000, 1)
    assert limiter.slide("k", 60_000, 1).cached is False
    assert limiter.slide("k", 60_000, 1).cached is True
    assert limiter.reset("k") is True
    assert limiter.slide("k", 60_000, 1).allowed
    assert limiter.reset("never") is False


def test_the_default_clock_is_unix_time_in_ms():
    before = time.time_ns() // 1_000_000
    now = winlimit.memory.wall_clock_ms()
    assert before <= now <= time.time_ns() // 1_000_000
    assert winlimit.memory.Limiter().clock is winlimit.memory.wall_clock_ms


def test_metrics_count_its_decisions_as_fallback():
    from prometheus_client import CollectorRegistry
    from winlimit.metrics import Metrics

    registry = CollectorRegistry()
    limiter = winlimit.memory.Limiter(clock=Clock(), metrics=Metrics(registry), cache_rejections=True)
    for _ in range(4):
        limiter.fixed("k", 60_000, 2, name="api")
    assert registry.get_sample_value("winlimit_decisions_total", {"policy": "api", "outcome": "fallback"}) == 4
    assert registry.get_sample_value("winlimit_lowest_remaining", {"policy": "api"}) == 0


def test_refund_gives_units_back_through_the_methods():
    limiter = winlimit.memory.Limiter(clock=Clock())
    limiter.fixed("k", 1_000, 2, cost=2)
    d = limiter.fixed("k", 1_000, 2, refund=1)
    assert (d.allowed, d.remaining) == (True, 1), "the refund replies as the peek after it"
    assert limiter.fixed("k", 1_000, 2).allowed


def test_the_limiters_block_ms_blocks_recording_calls_that_give_none():
    clock = Clock()
    limiter = winlimit.memory.Limiter(clock=clock, block_ms=5_000)
    limiter.slide("k", 1_000, 1)
    blocked = limiter.slide("k", 1_000, 1)
    assert (blocked.allowed, blocked.retry_after_ms) == (False, 5_000)
    clock.now += 2_000
    assert limiter.slide("k", 1_000, 1, peek=True).retry_after_ms == 3_000, "the window alone has room"
    assert limiter.slide("k", 1_000, 1, refund=1).retry_after_ms == 3_000, "a refund takes no block_ms"
    clock.now += 3_000
    assert limiter.slide("k", 1_000, 1).allowed


def test_block_ms_is_checked_as_the_redis_limiters():
    with pytest.raises(TypeError):
        winlimit.memory.Limiter(block_ms="5s")
    with pytest.raises(redis.ResponseError, match="BLOCK must be an integer between 1 and 1000000000000"):
        winlimit.memory.Limiter(clock=Clock()).gcra("k", 1_000, 1, block_ms=0)
