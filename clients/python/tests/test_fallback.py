"""fallback=winlimit.memory.Limiter() on every middleware (ASGI, the FastAPI dependency, WSGI
around Flask), served over real HTTP to a real httpx client, with a real redis-server stopped
mid-test by its PID and started again: the fallback decides while Redis is down, with one
warning when the limiter's breaker opens (counted as outcome "fallback" in the metrics), and
Redis decides again once the breaker's probe finds it back."""

import logging
import time

import flask
import pytest
from prometheus_client import CollectorRegistry
from fastapi import Depends, FastAPI
from starlette.applications import Starlette
from starlette.responses import PlainTextResponse
from starlette.routing import Route

import test_asgi
import test_wsgi
import winlimit.memory
from kit.ready import CALL_DEADLINE, CALL_TIMEOUT
from kit.server import REDIS_60
from winlimit import asgi, wsgi
from winlimit.metrics import Metrics

LIMIT = 3


def three_a_minute(limiter, key):
    return limiter.fixed(key, 60_000, LIMIT)


OPEN_MS = 100
# A case whose setup call overran its timeout on a loaded machine is not the case it tests: it
# is run again from the start, at most this many times.
ATTEMPTS = 5


def asgi_app(limiter, fallback, check=three_a_minute, **kw):
    app = Starlette(routes=[Route("/", lambda request: PlainTextResponse("hello"))])
    app.add_middleware(asgi.RateLimitMiddleware, limiter=limiter, check=check, fallback=fallback, **kw)
    return app


def fastapi_app(limiter, fallback, check=three_a_minute, **kw):
    app = FastAPI()
    limit = asgi.RateLimit(limiter, check, fallback=fallback, **kw)

    @app.get("/", dependencies=[Depends(limit)])
    async def root():
        return "hello"

    return app


def wsgi_app(limiter, fallback, check=three_a_minute, **kw):
    app = flask.Flask("fallback")
    app.get("/")(lambda: "hello")
    app.wsgi_app = wsgi.RateLimitMiddleware(app.wsgi_app, limiter, check, fallback=fallback, **kw)
    return app


FRAMEWORKS = {"asgi": (asgi_app, test_asgi.serve, test_asgi.limiter_on),
              "fastapi": (fastapi_app, test_asgi.serve, test_asgi.limiter_on),
              "wsgi": (wsgi_app, test_wsgi.serve, test_wsgi.limiter_on)}


def until_the_probe(limiter):
    """Sleeps until the breaker lets its probe through, by the time it says it stays open."""
    time.sleep(limiter.breakers.of("").open_for_ms() / 1000)


OPENED = "winlimit: Redis failed 3 times in a row ("
CLOSED = "winlimit: Redis answers again: the circuit breaker of limiter 'winlimit' closes after "


def remaining(response):
    return int(response.headers["RateLimit"].split(";r=")[1].split(";")[0])


def winlimit_lines(caplog, level):
    return [rec.getMessage() for rec in caplog.records if rec.name == "winlimit" and rec.levelname == level]


@pytest.mark.parametrize("framework", list(FRAMEWORKS))
def test_the_fallback_holds_the_limit_while_redis_is_down_then_redis_decides_again(framework, start_server, caplog):
    caplog.set_level(logging.INFO, logger="winlimit")
    make_app, serve, limiter_on = FRAMEWORKS[framework]
    redis_server = start_server()
    port = redis_server.port
    fallback = winlimit.memory.Limiter()
    registry = CollectorRegistry()
    limiter = limiter_on(port, open_ms=OPEN_MS)
    with serve(make_app(limiter, fallback, metrics=Metrics(registry), timeout=CALL_DEADLINE)) as http:
        first = http.get("/")
        assert (first.status_code, remaining(first)) == (200, LIMIT - 1)  # Redis decided
        redis_server.stop(keep_dir=True)

        # Down: the process's own count, from its first request on; the limit holds.
        during = [http.get("/") for _ in range(LIMIT + 2)]
        assert [r.status_code for r in during] == [200] * LIMIT + [429, 429]
        assert [remaining(r) for r in during[:LIMIT]] == list(range(LIMIT - 1, -1, -1))
        assert len(fallback) == 1
        warnings = winlimit_lines(caplog, "WARNING")
        assert len(warnings) == 1 and warnings[0].startswith(OPENED + "ConnectionError: "), warnings
        assert winlimit_lines(caplog, "ERROR") == []

        redis_server.start(port)
        assert redis_server.port == port
        until_the_probe(limiter)
        # Back (empty: the server keeps nothing across restarts): Redis counts again, where the
        # fallback would still refuse.
        after = http.get("/")
        assert (after.status_code, remaining(after)) == (200, LIMIT - 1)
        assert redis_server.client.get("rl:127.0.0.1") == b"1"
    closed = winlimit_lines(caplog, "INFO")
    assert len(closed) == 1 and closed[0].startswith(CLOSED), closed
    assert len(winlimit_lines(caplog, "WARNING")) == 1
    counted = {outcome: registry.get_sample_value("winlimit_decisions_total", {"policy": "winlimit", "outcome": outcome})
               for outcome in ("allowed", "fallback", "error")}
    assert counted == {"allowed": 2, "fallback": LIMIT + 2, "error": None}


@pytest.mark.parametrize("framework", list(FRAMEWORKS))
def test_each_outage_is_warned_about_once_and_the_fallback_keeps_its_count_for_the_next(framework, start_server, caplog):
    caplog.set_level(logging.INFO, logger="winlimit")
    make_app, serve, limiter_on = FRAMEWORKS[framework]
    redis_server = start_server()
    port = redis_server.port
    limiter = limiter_on(port, open_ms=OPEN_MS)
    fallback_counts = []
    app = make_app(limiter, winlimit.memory.Limiter(), check=lambda lim, key: lim.fixed(key, 60_000, 100), timeout=CALL_DEADLINE)
    with serve(app) as http:
        for _ in range(2):
            redis_server.stop(keep_dir=True)
            during = [http.get("/") for _ in range(5)]
            assert [r.status_code for r in during] == [200] * 5
            fallback_counts.append([remaining(r) for r in during])
            redis_server.start(port)
            until_the_probe(limiter)
            assert http.get("/").status_code == 200
    # The fallback kept its count from the first outage (within its window) for the second.
    assert fallback_counts == [list(range(99, 94, -1)), list(range(94, 89, -1))]
    assert len(winlimit_lines(caplog, "WARNING")) == 2
    assert len(winlimit_lines(caplog, "INFO")) == 2


@pytest.mark.skipif(REDIS_60, reason="Redis 6.0 has neither CLIENT PAUSE WRITE nor CLIENT UNPAUSE")
@pytest.mark.parametrize("framework", list(FRAMEWORKS))
def test_the_fallback_decides_when_redis_gives_no_answer_in_time(framework, server, r, caplog):
    caplog.set_level(logging.INFO, logger="winlimit")
    make_app, serve, limiter_on = FRAMEWORKS[framework]
    for _ in range(ATTEMPTS):
        r.flushall()
        caplog.clear()
        limiter = limiter_on(server.port, open_ms=OPEN_MS)
        fallback = winlimit.memory.Limiter()
        with serve(make_app(limiter, fallback, timeout=CALL_TIMEOUT)) as http:
            first = http.get("/")
            if len(fallback) > 0:
                continue  # the first call overran CALL_TIMEOUT (a loaded machine): Redis did not decide it
            assert remaining(first) == LIMIT - 1  # Redis decided
            r.execute_command("CLIENT", "PAUSE", 10_000, "WRITE")
            try:
                paused = [http.get("/") for _ in range(LIMIT)]
            finally:
                r.execute_command("CLIENT", "UNPAUSE")
            # The fallback's own count: Redis's first unit is not in it.
            assert [(p.status_code, remaining(p)) for p in paused] == [(200, LIMIT - 1 - i) for i in range(LIMIT)]
            warnings = winlimit_lines(caplog, "WARNING")
            assert len(warnings) == 1 and warnings[0].startswith(OPENED + "TimeoutError: "), warnings
            until_the_probe(limiter)
            http.get("/")
        break
    else:
        pytest.fail(f"the first call overran CALL_TIMEOUT in all {ATTEMPTS} attempts")
    closed = winlimit_lines(caplog, "INFO")
    assert len(closed) == 1 and closed[0].startswith(CLOSED), closed
    assert int(r.get("rl:127.0.0.1")) >= 2
