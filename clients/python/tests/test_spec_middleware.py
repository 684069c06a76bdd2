"""The middleware cases every client shares (clients/spec/middleware.json), each run on the
ASGI middleware and the FastAPI dependency (uvicorn) and the WSGI middleware around Flask
(wsgiref), with a real httpx client over a real redis-server: stopped for 'stopped', paused
with CLIENT PAUSE for 'paused'. The Node client's tests read the same file
(clients/node/test/spec-middleware.test.mjs)."""

import logging
import time

import flask
import pytest
from fastapi import Depends, FastAPI
from starlette.applications import Starlette
from starlette.responses import PlainTextResponse
from starlette.routing import Route

import test_asgi
import test_wsgi
from winlimit import asgi, wsgi

from kit.server import REDIS_60
from shared_spec import ids, load

SPEC = load("middleware.json")


def check_of(case):
    """The spec's check as a limiter call on the request's key (awaitable or not, as the
    limiter's methods are)."""
    if case["check"] == "raises":
        def broken(lim, key):
            raise ValueError("a bug in the check")
        return broken
    call = case["check"]
    return lambda lim, key: getattr(lim, call["method"])(key, *call["args"][1:], **call["options"])


def options_of(case):
    options = dict(case["options"])
    if "timeout_ms" in options:
        options["timeout"] = options.pop("timeout_ms") / 1000
    if "key" in options:
        options.pop("key")
        options["key_func"] = lambda request: None
    return options


def asgi_app(port, case):
    app = Starlette(routes=[Route("/", lambda request: PlainTextResponse("hello"))])
    app.add_middleware(asgi.RateLimitMiddleware, limiter=test_asgi.limiter_on(port), check=check_of(case),
                       **options_of(case))
    return app


def fastapi_app(port, case):
    app = FastAPI()
    limit = asgi.RateLimit(test_asgi.limiter_on(port), check_of(case), **options_of(case))

    @app.get("/", dependencies=[Depends(limit)])
    async def root():
        return "hello"

    return app


def wsgi_app(port, case):
    app = flask.Flask("spec")
    app.get("/")(lambda: "hello")
    app.wsgi_app = wsgi.RateLimitMiddleware(app.wsgi_app, test_wsgi.limiter_on(port), check_of(case),
                                            **options_of(case))
    return app


# name -> (app maker, server, the body as the framework writes a text: FastAPI's
# HTTPException and route return values are JSON).
FRAMEWORKS = {
    "asgi": (asgi_app, test_asgi.serve, lambda r: r.text),
    "fastapi": (fastapi_app, test_asgi.serve, lambda r: r.json()["detail"] if r.status_code >= 400 else r.json()),
    "wsgi": (wsgi_app, test_wsgi.serve, lambda r: r.text),
}


@pytest.fixture(params=list(FRAMEWORKS))
def framework(request):
    return request.param


@pytest.mark.parametrize("case", SPEC["cases"], ids=ids(SPEC["cases"]))
def test_the_middleware_answers_as_the_shared_case_says(framework, case, server, r, start_server, caplog):
    if case["redis"] == "paused" and REDIS_60:
        pytest.skip("Redis 6.0 has neither CLIENT PAUSE WRITE nor CLIENT UNPAUSE")
    caplog.set_level(logging.WARNING, logger="winlimit")
    make_app, serve, body_of = FRAMEWORKS[framework]
    redis_server = start_server() if case["redis"] == "stopped" else server
    with serve(make_app(redis_server.port, case)) as http:
        for _ in range(case["requests"] - 1):
            http.get("/")
        if case["redis"] == "stopped":
            redis_server.stop()
        if case["redis"] == "paused":
            r.execute_command("CLIENT", "PAUSE", 10_000, "WRITE")
        started = time.monotonic()
        try:
            response = http.get("/")
        finally:
            if case["redis"] == "paused":
                r.execute_command("CLIENT", "UNPAUSE")
        elapsed_ms = (time.monotonic() - started) * 1000
    assert_answered(case, response, body_of)
    assert_logged(case, caplog)
    if case["redis"] == "paused":
        assert case["options"]["timeout_ms"] <= elapsed_ms < 5000
    if "redis_keys" in case:
        assert sorted(k.decode() for k in r.keys("*")) == case["redis_keys"]


def assert_answered(case, response, body_of):
    assert response.status_code == case["status"]
    if case["body"] is not None:
        assert body_of(response) == ("hello" if case["body"] == "app" else SPEC["bodies"][case["body"]])
    names = ("RateLimit-Policy", "RateLimit", "Retry-After")
    assert {n: response.headers[n] for n in names if n in response.headers} == case["fields"]


def assert_logged(case, caplog):
    lines = [(rec.levelname, rec.getMessage()) for rec in caplog.records if rec.name == "winlimit"]
    if case["log"] is None:
        assert lines == []
        return
    level = {"warn": "WARNING", "error": "ERROR"}[case["log"]["level"]]
    assert len(lines) == 1 and lines[0][0] == level and lines[0][1].startswith(case["log"]["starts"]), lines
