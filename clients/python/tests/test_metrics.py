"""winlimit.metrics.Metrics on a registry of the test's own: after a scripted sequence of
requests to the ASGI middleware, the FastAPI dependency and the WSGI middleware (Flask), on
real servers with a real httpx client over a real redis-server, and of calls to the sync and
asyncio limiters, the counters equal the decisions made; no key is ever a label."""

import pytest
import redis
from prometheus_client import CollectorRegistry, generate_latest

from apps import FRAMEWORKS, served
from winlimit.metrics import Metrics

W = 60_000


def twice_a_minute(lim, key):
    return lim.fixed(key, W, 2, name="api")


@pytest.fixture(params=FRAMEWORKS)
def framework(request):
    return request.param


def counts(registry, policy="api"):
    return {outcome: registry.get_sample_value("winlimit_decisions_total", {"policy": policy, "outcome": outcome})
            for outcome in ("allowed", "rejected", "shadow_rejected", "cached", "fallback", "error")}


def get_all(framework, port, n, **kw):
    registry = CollectorRegistry()
    with served(framework, port, twice_a_minute, limiter_options={"cache_rejections": True}, metrics=Metrics(registry),
                **kw) as http:
        statuses = [http.get("/").status_code for _ in range(n)]
    return registry, statuses


def test_the_counters_equal_the_decisions(framework, server, r):
    registry, statuses = get_all(framework, server.port, 5)
    assert statuses == [200, 200, 429, 429, 429]
    # Two accepted, one rejected by Redis, two answered from the limiter's cache.
    assert counts(registry) == {"allowed": 2, "rejected": 1, "shadow_rejected": None, "cached": 2, "fallback": None,
                                "error": None}
    assert registry.get_sample_value("winlimit_call_seconds_count", {"backend": "redis"}) == 3


def test_shadow_rejections_are_counted_as_such(framework, server, r):
    registry, statuses = get_all(framework, server.port, 4, shadow=True)
    assert statuses == [200] * 4
    assert counts(registry)["allowed"] == 2 and counts(registry)["shadow_rejected"] == 2


def test_a_failed_call_is_an_error_of_the_limiters_policy(framework, start_server):
    stopped = start_server()
    stopped.stop()
    registry, statuses = get_all(framework, stopped.port, 2)
    assert statuses == [503, 503]
    assert counts(registry, "winlimit")["error"] == 2


def test_the_lowest_remaining_is_reported_once_per_scrape(framework, server, r):
    registry, _ = get_all(framework, server.port, 1)
    assert registry.get_sample_value("winlimit_lowest_remaining", {"policy": "api"}) == 1
    assert registry.get_sample_value("winlimit_lowest_remaining", {"policy": "api"}) is None


def test_no_key_is_a_label(framework, server, r):
    registry, _ = get_all(framework, server.port, 3)
    text = generate_latest(registry).decode()
    assert "winlimit_decisions_total" in text and "127.0.0.1" not in text and "rl:" not in text


def test_a_limiter_counts_every_call(make_limiter, r):
    registry = CollectorRegistry()
    limiter = make_limiter(cache_rejections=True, metrics=Metrics(registry))
    outcomes = [limiter.gcra(f"user:{i % 2}", W, 1, name="api").allowed for i in range(6)]
    assert outcomes == [True, True, False, False, False, False]
    assert counts(registry) == {"allowed": 2, "rejected": 2, "shadow_rejected": None, "cached": 2, "fallback": None,
                                "error": None}
    assert registry.get_sample_value("winlimit_call_seconds_count", {"backend": "redis"}) == 4
    assert "user:" not in generate_latest(registry).decode()


def test_a_limiter_counts_a_failed_call_as_an_error(make_limiter, start_server):
    stopped = start_server()
    registry = CollectorRegistry()
    limiter = make_limiter(port=stopped.port, metrics=Metrics(registry))
    stopped.stop()
    with pytest.raises(redis.ConnectionError):
        limiter.fixed("k", W, 1, name="api")
    assert counts(registry)["error"] == 1
