"""The middleware cases every client shares (clients/spec/middleware.json), each run on the
ASGI middleware and the FastAPI dependency (uvicorn) and the WSGI middleware around Flask
(wsgiref), with a real httpx client over a real redis-server: stopped for 'stopped', paused
with CLIENT PAUSE for 'paused'. The Node client's tests read the same file
(clients/node/test/spec-middleware.test.mjs)."""

import logging
import time

import pytest

from apps import FRAMEWORKS, body_of, served
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


@pytest.fixture(params=FRAMEWORKS)
def framework(request):
    return request.param


@pytest.mark.parametrize("case", SPEC["cases"], ids=ids(SPEC["cases"]))
def test_the_middleware_answers_as_the_shared_case_says(framework, case, server, r, start_server, caplog):
    if case["redis"] == "paused" and REDIS_60:
        pytest.skip("Redis 6.0 has neither CLIENT PAUSE WRITE nor CLIENT UNPAUSE")
    caplog.set_level(logging.WARNING, logger="winlimit")
    redis_server = start_server() if case["redis"] == "stopped" else server
    with served(framework, redis_server.port, check_of(case), **options_of(case)) as http:
        for _ in range(case["requests"] - 1):
            http.get("/")
        if case["redis"] == "stopped":
            redis_server.stop()
        if case["redis"] == "paused":
            r.execute_command("CLIENT", "PAUSE", 10_000, "WRITE")
            # The error line asked for is the last request's: one before it that outlasted a
            # short timeout_ms on a loaded machine (Redis up) is not what the case is about.
            caplog.clear()
        started = time.monotonic()
        try:
            response = http.get("/")
        finally:
            if case["redis"] == "paused":
                r.execute_command("CLIENT", "UNPAUSE")
        elapsed_ms = (time.monotonic() - started) * 1000
    assert_answered(case, response, lambda r: body_of(framework, r))
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
