"""winlimit.limits: winlimit as a storage of the `limits` library, by URI, on a real server
(this run's backend), sync and limits.aio: its moving window is one exact WINLIMIT.SLIDE per
hit, its fixed window counts as limits' own counters do, and the sliding window counter is
refused at start-up. (limits' own tests run against it too: scripts/limits-tests.py.)"""

import asyncio
import time

import pytest
from limits import RateLimitItemPerHour, RateLimitItemPerMinute, RateLimitItemPerSecond
from limits.aio import strategies as aio_strategies
from limits.errors import ConfigurationError
from limits.storage import storage_from_string
from limits.strategies import FixedWindowRateLimiter, MovingWindowRateLimiter, SlidingWindowCounterRateLimiter

import winlimit.limits
from conftest import BACKEND, MODULE, module_cluster, sent_as
from kit.keyspace import pexpiretime

THREE_A_MINUTE = RateLimitItemPerMinute(3)


class Blocking:
    """A limits.aio strategy driven from synchronous test code, on one event loop."""

    def __init__(self, strategy, loop):
        self.strategy, self.loop = strategy, loop

    def __getattr__(self, name):
        return lambda *a, **k: self.loop.run_until_complete(getattr(self.strategy, name)(*a, **k))


@pytest.fixture(params=["sync", "asyncio"])
def strategies(request, server, r):
    """(moving window, fixed window) strategies over a storage made from a winlimit URI."""
    if request.param == "sync":
        storage = storage_from_string(f"winlimit+redis://127.0.0.1:{server.port}", backend=BACKEND)
        yield MovingWindowRateLimiter(storage), FixedWindowRateLimiter(storage)
        storage.client.close()
        return
    loop = asyncio.new_event_loop()
    storage = storage_from_string(f"async+winlimit+redis://127.0.0.1:{server.port}", backend=BACKEND)
    yield (Blocking(aio_strategies.MovingWindowRateLimiter(storage), loop),
           Blocking(aio_strategies.FixedWindowRateLimiter(storage), loop))
    loop.run_until_complete(storage.client.aclose())
    loop.close()


def test_each_scheme_makes_a_winlimit_storage(server):
    for scheme, kind in [("winlimit+redis", winlimit.limits.WinlimitStorage),
                         ("async+winlimit+redis", winlimit.limits.AsyncWinlimitStorage)]:
        assert isinstance(storage_from_string(f"{scheme}://127.0.0.1:{server.port}"), kind)


def test_the_moving_window_admits_the_limit_then_refuses(strategies, r):
    moving, _ = strategies
    assert [moving.hit(THREE_A_MINUTE, "u") for _ in range(5)] == [True, True, True, False, False]
    assert moving.get_window_stats(THREE_A_MINUTE, "u").remaining == 0


def test_a_moving_window_hit_is_one_slide_and_rejections_record_nothing(strategies, r):
    moving, _ = strategies
    r.config_resetstat()
    for _ in range(5):
        moving.hit(THREE_A_MINUTE, "u")
    calls = r.info("commandstats")[f"cmdstat_{sent_as('winlimit.slide')}"]["calls"]
    assert calls == 5
    assert r.zcard("LIMITS:moving:LIMITER/u/3/1/minute") == 3, "an exact log of the admitted units"


def test_cost_takes_that_many_units_and_never_more_than_the_limit(strategies, r):
    moving, _ = strategies
    assert not moving.hit(THREE_A_MINUTE, "u", cost=4)
    assert moving.hit(THREE_A_MINUTE, "u", cost=2)
    assert not moving.hit(THREE_A_MINUTE, "u", cost=2)
    assert moving.test(THREE_A_MINUTE, "u") and not moving.test(THREE_A_MINUTE, "u", cost=2)


def test_the_window_starts_at_the_oldest_counted_unit(strategies, r):
    """limits' reset time is the oldest entry plus the window: the server's time of that unit
    (its score in the log), read on the same machine's clock."""
    moving, _ = strategies
    moving.hit(THREE_A_MINUTE, "u")
    oldest = r.zrange("LIMITS:moving:LIMITER/u/3/1/minute", 0, 0, withscores=True)[0][1] / 1000
    moving.hit(THREE_A_MINUTE, "u")
    before = time.time()
    reset, remaining = moving.get_window_stats(THREE_A_MINUTE, "u")
    after = time.time()
    assert remaining == 1
    assert oldest + 60 - 0.001 <= reset <= oldest + 60 + (after - before) + 0.001


def test_an_empty_moving_window_resets_a_window_from_now(strategies, r):
    moving, _ = strategies
    before = time.time()
    reset, remaining = moving.get_window_stats(THREE_A_MINUTE, "nobody")
    assert remaining == 3 and before + 60 <= reset <= time.time() + 60


def test_a_limit_above_max_limit_counts_per_bucket(strategies, r):
    moving, _ = strategies
    million = RateLimitItemPerHour(1_000_000)
    assert moving.hit(million, "u", cost=999_999) and moving.hit(million, "u")
    assert not moving.hit(million, "u")
    key = "LIMITS:moving:LIMITER/u/1000000/1/hour"
    assert r.getrange(key, 0, 7) == b"wlbucket" and r.bitfield(key).get("i64", "#1").execute() == [3600]


def test_the_fixed_window_counts_every_hit_as_limits_counters_do(strategies, r):
    _, fixed = strategies
    assert [fixed.hit(THREE_A_MINUTE, "u") for _ in range(5)] == [True, True, True, False, False]
    assert r.get("LIMITS:fixed:LIMITER/u/3/1/minute") == b"5"
    assert fixed.get_window_stats(THREE_A_MINUTE, "u").remaining == 0


def test_the_fixed_window_resets_when_its_counter_expires(strategies, r):
    _, fixed = strategies
    fixed.hit(THREE_A_MINUTE, "u")
    before = time.time()
    reset = fixed.get_window_stats(THREE_A_MINUTE, "u").reset_time
    after = time.time()
    expiry = pexpiretime(r, "LIMITS:fixed:LIMITER/u/3/1/minute") / 1000
    assert expiry - 0.001 <= reset <= expiry + (after - before) + 0.001


def test_moving_window_and_counter_keys_never_share_a_name(strategies, r):
    moving, fixed = strategies
    moving.hit(THREE_A_MINUTE, "u")
    fixed.hit(THREE_A_MINUTE, "u")
    assert sorted(r.keys()) == [b"LIMITS:fixed:LIMITER/u/3/1/minute", b"LIMITS:moving:LIMITER/u/3/1/minute"]


def test_clear_forgets_both_windows_of_a_limit(strategies, r):
    moving, fixed = strategies
    moving.hit(THREE_A_MINUTE, "u")
    fixed.hit(THREE_A_MINUTE, "u")
    moving.clear(THREE_A_MINUTE, "u")
    assert r.keys() == []


def test_reset_deletes_every_key_of_the_prefix_and_no_other(server, r):
    storage = storage_from_string(f"winlimit+redis://127.0.0.1:{server.port}", backend=BACKEND)
    r.set("someone-else", 1)
    for user in ("a", "b"):
        MovingWindowRateLimiter(storage).hit(THREE_A_MINUTE, user)
        FixedWindowRateLimiter(storage).hit(THREE_A_MINUTE, user)
    assert storage.reset() == 4
    assert r.keys() == [b"someone-else"]


@pytest.mark.parametrize("scheme", ["winlimit+redis", "async+winlimit+redis"])
def test_the_sliding_window_counter_is_refused_at_start_up_naming_the_moving_window(server, scheme):
    storage = storage_from_string(f"{scheme}://127.0.0.1:{server.port}")
    strategy = SlidingWindowCounterRateLimiter if scheme.startswith("winlimit") \
        else aio_strategies.SlidingWindowCounterRateLimiter
    with pytest.raises(ConfigurationError, match="moving-window"):
        strategy(storage)


def test_check_says_whether_the_server_answers(start_server):
    down = start_server()
    storage = storage_from_string(f"winlimit+redis://127.0.0.1:{down.port}", socket_timeout=1)
    assert storage.check()
    down.stop()
    assert not storage.check()


def test_another_uri_scheme_is_refused_by_name():
    with pytest.raises(ValueError, match="winlimit\\+redis"):
        winlimit.limits.WinlimitStorage("redis://127.0.0.1:1")


cluster = module_cluster(MODULE)


def test_a_cluster_uri_decides_each_key_on_its_node(cluster):
    nodes = ",".join(f"127.0.0.1:{node.port}" for node in cluster.nodes)
    storage = storage_from_string(f"winlimit+redis+cluster://{nodes}", backend=BACKEND)
    moving = MovingWindowRateLimiter(storage)
    per_second = RateLimitItemPerSecond(2, 3600)
    users = [f"user{i}" for i in range(12)]
    assert all(moving.hit(per_second, user) and moving.hit(per_second, user) for user in users)
    assert not any(moving.hit(per_second, user) for user in users)
    stored = sum(node.client.dbsize() for node in cluster.nodes)
    assert stored == len(users) and all(node.client.dbsize() > 0 for node in cluster.nodes)
