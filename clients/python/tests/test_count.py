"""count= of every middleware (ASGI, the FastAPI dependency, WSGI), served by real HTTP
servers (uvicorn, wsgiref) to a real httpx client over a real redis-server: only the requests
that count use up the limit; a handler that raises is a failure; block_ms= blocks the key.

Each app has one route, `/login?as=ok|bad|raise`: 200, 401, or an exception."""

import contextlib

import pytest
from fastapi import Depends, FastAPI, HTTPException, Query
from starlette.applications import Starlette
from starlette.responses import PlainTextResponse
from starlette.routing import Route

import test_asgi
import test_wsgi
from winlimit import asgi, wsgi

W = 60_000
LIMIT = 2
FRAMEWORKS = ("asgi", "fastapi", "wsgi")


def check(limiter, key):
    return limiter.fixed(key, W, LIMIT)


def _starlette_login(request):
    outcome = request.query_params.get("as")
    if outcome == "raise":
        raise RuntimeError("the handler failed")
    return PlainTextResponse(outcome, status_code=200 if outcome == "ok" else 401)


def _asgi(port, options):
    app = Starlette(routes=[Route("/login", _starlette_login)])
    app.add_middleware(asgi.RateLimitMiddleware, limiter=test_asgi.limiter_on(port), check=check, **options)
    return app


def _fastapi(port, options):
    app = FastAPI()

    # scope="function": the dependency settles before the response is sent (FastAPI 0.121+).
    limit = Depends(asgi.RateLimit(test_asgi.limiter_on(port), check, **options), scope="function")

    @app.get("/login", dependencies=[limit])
    async def login(outcome: str = Query("", alias="as")):
        return login_outcome(outcome)

    return app


def login_outcome(outcome):
    if outcome == "raise":
        raise RuntimeError("the handler failed")
    if outcome != "ok":
        raise HTTPException(401, "bad password")
    return "ok"


def _wsgi(port, options):
    def login(environ, start_response):
        outcome = environ.get("QUERY_STRING", "").removeprefix("as=")
        if outcome == "raise":
            raise RuntimeError("the handler failed")
        start_response("200 OK" if outcome == "ok" else "401 Unauthorized", [("Content-Type", "text/plain")])
        return [outcome.encode()]

    return wsgi.RateLimitMiddleware(login, test_wsgi.limiter_on(port), check, **options)


MAKERS = {"asgi": (_asgi, test_asgi.serve), "fastapi": (_fastapi, test_asgi.serve), "wsgi": (_wsgi, test_wsgi.serve)}


@contextlib.contextmanager
def served(framework, port, **options):
    make, serve = MAKERS[framework]
    with serve(make(port, options)) as http:
        yield http


def login(http, outcome):
    # A server may drop the connection after a handler raised: that one is not reused.
    headers = {"Connection": "close"} if outcome == "raise" else {}
    return http.get("/login", params={"as": outcome}, headers=headers).status_code


def used(r):
    """The units the client's address has used in the current window (the FIXED counter)."""
    value = r.get("rl:127.0.0.1")
    return int(value) if value is not None else 0


@pytest.fixture(params=FRAMEWORKS)
def framework(request):
    return request.param


@pytest.mark.parametrize("count, free, counted", [("failures", ("ok", 200), ("bad", 401)),
                                                   ("successes", ("bad", 401), ("ok", 200))],
                         ids=["failures", "successes"])
def test_only_the_requests_that_count_use_up_the_limit(framework, server, r, count, free, counted):
    with served(framework, server.port, count=count) as http:
        for _ in range(5):
            assert login(http, free[0]) == free[1]
        assert used(r) == 0
        assert [login(http, counted[0]) for _ in range(LIMIT)] == [counted[1]] * LIMIT
        assert used(r) == LIMIT
        assert login(http, free[0]) == 429


def test_a_handler_that_raises_counts_as_a_failure(framework, server, r):
    with served(framework, server.port, count="successes") as http:
        assert login(http, "raise") == 500
        assert used(r) == 0
    r.flushall()
    with served(framework, server.port, count="failures") as http:
        assert [login(http, "raise") for _ in range(LIMIT)] == [500] * LIMIT
        assert used(r) == LIMIT
        assert login(http, "ok") == 429


def test_count_all_counts_every_outcome(framework, server, r):
    with served(framework, server.port) as http:
        assert [login(http, outcome) for outcome in ("ok", "bad", "ok")] == [200, 401, 429]
        assert used(r) == LIMIT


def test_is_failure_overrides_which_status_fails(framework, server, r):
    with served(framework, server.port, count="failures", is_failure=lambda status: status == 200) as http:
        assert [login(http, "bad") for _ in range(3)] == [401] * 3
        assert used(r) == 0
        assert [login(http, "ok") for _ in range(LIMIT)] == [200] * LIMIT
        assert login(http, "ok") == 429


def test_block_ms_blocks_the_address_once_the_failures_are_used_up(framework, server, r):
    with served(framework, server.port, count="failures", block_ms=900_000) as http:
        for _ in range(LIMIT):
            login(http, "bad")
        response = http.get("/login", params={"as": "ok"})
        assert response.status_code == 429
        # The block's 15 minutes, not the window's at most 60 s.
        assert W < int(response.headers["Retry-After"]) * 1000 <= 900_000 + 1000


@pytest.mark.parametrize("options, error", [({"count": "some"}, ValueError), ({"is_failure": 400}, TypeError),
                                            ({"block_ms": "5"}, TypeError)], ids=["count", "is_failure", "block_ms"])
def test_the_options_are_checked_when_the_middleware_is_made(options, error, server):
    with pytest.raises(error):
        asgi.RateLimitMiddleware(None, test_asgi.limiter_on(server.port), check, **options)
    with pytest.raises(error):
        wsgi.RateLimitMiddleware(None, test_wsgi.limiter_on(server.port), check, **options)
