"""The Python code of docs/guides/python.md, included from examples/guides/python/, does what
the guide says against a real Redis with the module: each ASGI piece served to an httpx client,
the WSGI middleware to Flask's, the calls on a redis-py client."""

import asyncio
import os
import sys
from types import SimpleNamespace

import httpx
import prometheus_client
import redis
import redis.asyncio
import winlimit.asyncio


sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "guides", "python"))
import asgi_apps  # noqa: E402
import sync_calls  # noqa: E402


def served(server, build, requests):
    """The answers of the app `build(limiter)` makes to each (method, path, options) in turn."""
    async def run():
        limiter = winlimit.asyncio.Limiter(redis.asyncio.Redis(port=server.port))
        app = build(limiter)
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://test") as http:
            return app, [await http.request(method, path, **options) for method, path, options in requests]
    return asyncio.run(run())


def gets(n, **options):
    return [("GET", "/", options)] * n


def test_the_middleware_limits_every_request(server, client):
    _, answers = served(server, asgi_apps.every_request, gets(11))
    assert [a.status_code for a in answers] == [200] * 10 + [429]   # BURST 10
    assert "RateLimit" in answers[0].headers


def test_failed_logins_count_and_the_fifth_blocks_while_good_ones_are_refunded(server, client):
    good = ("POST", "/login", {"json": {"user": "ann", "password": "right"}})
    bad = ("POST", "/login", {"json": {"user": "ann", "password": "wrong"}})
    _, answers = served(server, asgi_apps.login_app, [good] * 6 + [bad] * 5 + [good])
    assert [a.status_code for a in answers] == [200] * 6 + [401] * 5 + [429]


def test_each_tier_gets_its_own_limit(server, client):
    paid = {"headers": {"x-api-tier": "paid"}}
    _, answers = served(server, asgi_apps.tiers_app, gets(3) + gets(4, **paid))
    assert [a.status_code for a in answers] == [200, 200, 429] + [200, 200, 429, 429]
    assert answers[0].headers["RateLimit-Policy"] == '"free";q=2;w=60'


def test_legacy_headers(server, client):
    _, answers = served(server, asgi_apps.legacy_app, gets(1))
    assert answers[0].headers["X-RateLimit-Limit"] == "3" and answers[0].headers["X-RateLimit-Remaining"] == "2"


def test_a_custom_rejection_is_json_with_the_fields(server, client):
    _, answers = served(server, asgi_apps.custom_rejection_app, gets(4))
    assert answers[3].status_code == 429 and answers[3].json()["error"] == "rate limited"
    assert "Retry-After" in answers[3].headers and "RateLimit" in answers[3].headers


def test_the_fallback_decides_while_redis_is_down():
    async def run():
        dead = redis.asyncio.Redis(port=1, socket_connect_timeout=0.2, retry_on_error=[])
        app = asgi_apps.fallback_app(winlimit.asyncio.Limiter(dead))
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://test") as http:
            return [(await http.get("/")).status_code for _ in range(4)]
    assert asyncio.run(run()) == [200, 200, 200, 429]


def test_shadow_mode_lets_everything_through_and_counts_what_it_would_reject(server, client):
    limiting, answers = served(server, asgi_apps.shadow_app, gets(5))
    assert [a.status_code for a in answers] == [200] * 5
    assert limiting.shadow_rejections == 2


def test_the_metrics_count_decisions_by_outcome(server, client):
    registry = prometheus_client.CollectorRegistry()
    served(server, lambda limiter: asgi_apps.metrics_app(limiter, registry), gets(4))
    count = lambda outcome: registry.get_sample_value("winlimit_decisions_total",  # noqa: E731
                                                      {"policy": "winlimit", "outcome": outcome})
    assert (count("allowed"), count("rejected")) == (3, 1)


def test_reset_unblocks_an_address(server, client):
    _, answers = served(server, asgi_apps.unblock_app, gets(4) + [("POST", "/admin/unblock/127.0.0.1", {})] + gets(1))
    assert [a.status_code for a in answers] == [200, 200, 200, 429, 200, 200]
    assert answers[4].json() == {"removed": True}


def test_backends_all_decide(client):
    assert sync_calls.backends(client).slide("k", 60_000, 10).remaining == 8   # the guide's call, then this one


def test_calls(client):
    d = sync_calls.calls(client)
    assert (d.allowed, d.limit, d.remaining) == (True, 3, 2)


def test_a_refused_job_gives_its_unit_back(client):
    limiter = winlimit.Limiter(client)
    refused = SimpleNamespace(submit=lambda job: SimpleNamespace(status_code=429))
    sync_calls.refund_a_refused_job(limiter, refused, job={})
    d = limiter.gcra("jobs:acme", 60_000, 100, peek=True)
    assert d.remaining == d.limit


def test_waiting_for_a_turn(client):
    d = sync_calls.wait_for_a_turn(winlimit.Limiter(client))
    assert d.allowed and d.waited_ms == 0


def test_a_cached_rejection_is_answered_locally(client):
    for _ in range(5):
        winlimit.Limiter(client).slide("login:10.0.0.7", 60_000, 5)
    d = sync_calls.cached_rejections(client)
    assert not d.allowed and d.cached


def test_the_breaker_options(server, client):
    assert sync_calls.breaker_options(redis.asyncio.Redis(port=server.port), client).slide("k", 1_000, 1).allowed


def test_the_wsgi_middleware_on_flask(client):
    http = sync_calls.flask_app(client).test_client()
    assert [http.get("/").status_code for _ in range(4)] == [200, 200, 200, 429]
