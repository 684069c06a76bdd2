"""limiter.reset(key): the key deleted and its cached rejections forgotten, sync and asyncio
(the `limiter` fixtures run each test over both), and "unblock this user now" from a running
app: the ASGI middleware and the FastAPI dependency under uvicorn, the WSGI middleware around
Flask, with a real httpx client over a real redis-server."""

import flask
import pytest
from fastapi import Depends, FastAPI
from starlette.applications import Starlette
from starlette.responses import PlainTextResponse
from starlette.routing import Route

import test_asgi
import test_wsgi
from winlimit import asgi, wsgi

from test_cache import calls

W = 60_000


@pytest.fixture
def caching(make_limiter):
    return make_limiter(cache_rejections=True)


def test_reset_deletes_the_key_and_says_whether_there_was_one(limiter, r):
    limiter.slide("k", W, 3)
    assert limiter.reset("k") is True
    assert r.exists("k") == 0
    assert limiter.reset("k") is False


@pytest.mark.parametrize("call", [
    lambda lim, key: lim.slide(key, W, 1),
    lambda lim, key: lim.fixed(key, W, 1, align=True),
    lambda lim, key: lim.gcra(key, W, 1),
], ids=["slide", "fixed", "gcra"])
def test_a_rejected_and_cached_key_is_accepted_at_once_after_reset(caching, r, call):
    call(caching, "k")
    assert not call(caching, "k").allowed
    assert call(caching, "k").cached
    assert caching.reset("k") is True
    decision = call(caching, "k")
    assert decision.allowed and not decision.cached


def test_reset_forgets_every_cached_line_of_the_key_and_no_other(caching, r):
    for cost in (1, 2):
        caching.fixed("k", W, 2, cost=2)
        caching.fixed("k", W, 2, cost=cost)
    caching.fixed("other", W, 1)
    caching.fixed("other", W, 1)
    caching.reset(b"k")  # the key's bytes name the same key
    before = calls(r, "winlimit.fixed")
    assert [caching.fixed("k", W, 2, cost=c).cached for c in (1, 2)] == [False, False]
    assert caching.fixed("other", W, 1).cached
    assert calls(r, "winlimit.fixed") - before == 2


def flood_then_unblock(r, http, unblock):
    """Three requests (the third answered from the cache), unblock, one more: the statuses and
    how many of the four reached Redis."""
    before = calls(r, "winlimit.fixed")
    statuses = [http.get("/").status_code for _ in range(3)]
    unblock()
    statuses.append(http.get("/").status_code)
    return statuses, calls(r, "winlimit.fixed") - before


def one_a_minute(lim, key):
    return lim.fixed(key, W, 1)


def test_the_asgi_middleware_accepts_a_reset_key_at_once(server, r):
    limiter = test_asgi.limiter_on(server.port, cache_rejections=True)

    async def unblock(request):
        return PlainTextResponse(str(await limiter.reset("rl:127.0.0.1")))

    app = Starlette(routes=[Route("/", test_asgi.hello), Route("/unblock", unblock, methods=["POST"])])
    app.add_middleware(asgi.RateLimitMiddleware, limiter=limiter, check=one_a_minute,
                       key_func=lambda request: None if request.url.path == "/unblock" else request.client.host)
    with test_asgi.serve(app) as http:
        assert flood_then_unblock(r, http, lambda: http.post("/unblock").raise_for_status()) == ([200, 429, 429, 200], 3)


def test_the_fastapi_dependency_accepts_a_reset_key_at_once(server, r):
    limiter = test_asgi.limiter_on(server.port, cache_rejections=True)
    app = FastAPI()

    @app.get("/", dependencies=[Depends(asgi.RateLimit(limiter, one_a_minute))])
    async def root():
        return "hello"

    @app.post("/unblock")
    async def unblock():
        return await limiter.reset("rl:127.0.0.1")

    with test_asgi.serve(app) as http:
        assert flood_then_unblock(r, http, lambda: http.post("/unblock").raise_for_status()) == ([200, 429, 429, 200], 3)


def test_the_wsgi_middleware_accepts_a_reset_key_at_once(server, r):
    limiter = test_wsgi.limiter_on(server.port, cache_rejections=True)
    app = flask.Flask("reset")
    app.get("/")(lambda: "hello")
    app.wsgi_app = wsgi.RateLimitMiddleware(app.wsgi_app, limiter, one_a_minute)
    with test_wsgi.serve(app) as http:
        assert flood_then_unblock(r, http, lambda: limiter.reset("rl:127.0.0.1")) == ([200, 429, 429, 200], 3)
