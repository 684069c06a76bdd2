"""The ASGI middleware and the FastAPI dependency, served by a real uvicorn server on a free
loopback port and hit by a real httpx client, over a real redis-server; Redis stopped under a
running app for fail-open and fail-closed."""

import contextlib
import logging
import socket
import threading

import http_sf
import httpx
import pytest
import redis.asyncio
import uvicorn
from fastapi import Depends, FastAPI
from redis.backoff import NoBackoff
from redis.retry import Retry
from starlette.applications import Starlette
from starlette.responses import PlainTextResponse
from starlette.routing import Route

import winlimit.asyncio
from winlimit.asgi import RateLimit, RateLimitMiddleware

from kit.ready import READY_TIMEOUT, wait_until
from kit.server import free_port

W = 60_000


@contextlib.contextmanager
def serve(app, host="127.0.0.1"):
    """Run app under uvicorn on a free loopback port in a thread (IPv4, or `host="::1"`); yield
    an httpx client on it."""
    port = free_port() if host == "127.0.0.1" else free_port_v6()
    server = uvicorn.Server(uvicorn.Config(app, host=host, port=port, log_level="critical", lifespan="off"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    wait_until(lambda: server.started or not thread.is_alive(), what="uvicorn to start")
    assert server.started, "uvicorn stopped before it started"
    try:
        with httpx.Client(base_url=f"http://{url_host(host)}:{port}", timeout=READY_TIMEOUT) as http:
            yield http
    finally:
        server.should_exit = True
        thread.join(10)


def url_host(host):
    return f"[{host}]" if ":" in host else host


def free_port_v6():
    with socket.socket(socket.AF_INET6) as probe:
        probe.bind(("::1", 0))
        return probe.getsockname()[1]


def hello(request):
    return PlainTextResponse("hello", headers={"X-App": "kept"})


def limiter_on(port, **kw):
    # redis.asyncio connects lazily, inside the app's event loop. No retries: redis-py's
    # default retries a refused connection for about 4 s before it gives up.
    return winlimit.asyncio.Limiter(redis.asyncio.Redis(host="127.0.0.1", port=port, socket_timeout=2,
                                                        retry=Retry(NoBackoff(), 0)), **kw)


def limited_app(port, check, **kw):
    app = Starlette(routes=[Route("/", hello)])
    app.add_middleware(RateLimitMiddleware, limiter=limiter_on(port), check=check, **kw)
    return app


def fields(response):
    """The two RateLimit fields, parsed as Structured Field lists (a malformed one fails)."""
    return {name: http_sf.parse(response.headers[name].encode(), tltype="list")
            for name in ("RateLimit-Policy", "RateLimit")}


ALGORITHMS = {
    "slide": lambda lim, key: lim.slide(key, W, 3),
    # The short window is half a minute, so four requests on a loaded machine fall in it.
    "slide-pairs": lambda lim, key: lim.slide(key, [(W // 2, 3), (W, 100)]),
    "slide-bucket": lambda lim, key: lim.slide(key, W, 3, bucket=1000),
    "fixed": lambda lim, key: lim.fixed(key, W, 3),
    "fixed-align": lambda lim, key: lim.fixed(key, 10**12, 3, align=True),
    "gcra": lambda lim, key: lim.gcra(key, W, 1, burst=3),
}


@pytest.mark.parametrize("name", list(ALGORITHMS))
def test_any_algorithm_holds_the_limit_with_the_fields_on_every_response(server, r, name):
    with serve(limited_app(server.port, ALGORITHMS[name])) as http:
        responses = [http.get("/") for _ in range(4)]
    assert [x.status_code for x in responses] == [200, 200, 200, 429]
    parsed = [fields(x) for x in responses]
    assert [p["RateLimit"][0][1]["r"] for p in parsed] == [2, 1, 0, 0]
    assert all(p["RateLimit-Policy"] == parsed[0]["RateLimit-Policy"] for p in parsed)
    assert int(responses[3].headers["Retry-After"]) >= 1
    assert parsed[3]["RateLimit"][0][1]["t"] <= int(responses[3].headers["Retry-After"])
    assert "Retry-After" not in responses[0].headers


def test_the_429_carries_the_policy_the_state_and_retry_after(server, r):
    with serve(limited_app(server.port, ALGORITHMS["slide"])) as http:
        responses = [http.get("/") for _ in range(4)]
    assert [(x.headers["RateLimit-Policy"], x.headers["RateLimit"]) for x in responses] == [
        ('"winlimit";q=3;w=60', '"winlimit";r=2;t=60'),
        ('"winlimit";q=3;w=60', '"winlimit";r=1;t=60'),
        ('"winlimit";q=3;w=60', '"winlimit";r=0;t=60'),
        ('"winlimit";q=3;w=60', '"winlimit";r=0;t=60'),
    ]
    # The oldest of the three leaves a minute after it came, well under a second ago.
    assert (responses[3].status_code, responses[3].headers["Retry-After"]) == (429, "60")
    assert r.zcard("rl:127.0.0.1") == 3


def test_the_apps_own_response_is_kept_with_the_fields_added(server, r):
    with serve(limited_app(server.port, ALGORITHMS["fixed"])) as http:
        response = http.get("/")
    assert (response.status_code, response.text, response.headers["X-App"]) == (200, "hello", "kept")
    assert response.headers["RateLimit"] == '"winlimit";r=2;t=60'


def test_the_key_is_any_function_of_the_request(server, r):
    app = limited_app(server.port, lambda lim, key: lim.fixed(key, W, 1),
                      key_func=lambda request: request.headers.get("x-user", "anonymous"))
    with serve(app) as http:
        codes = [http.get("/", headers={"x-user": user}).status_code for user in ("a", "b", "a", "b", "c")]
    assert codes == [200, 200, 429, 429, 200]
    assert sorted(r.keys("rl:*")) == [b"rl:a", b"rl:b", b"rl:c"]


def test_an_async_key_function_and_none_for_unlimited_requests(server, r):
    async def key_func(request):
        return None if request.url.path == "/health" else "everyone"

    app = Starlette(routes=[Route("/", hello), Route("/health", hello)])
    app.add_middleware(RateLimitMiddleware, limiter=limiter_on(server.port), key_func=key_func,
                       check=lambda lim, key: lim.gcra(key, W, 1))
    with serve(app) as http:
        codes = [http.get(path).status_code for path in ("/", "/", "/health", "/health")]
        health = http.get("/health")
    assert codes == [200, 429, 200, 200]
    assert "RateLimit" not in health.headers
    assert r.keys("*") == [b"rl:everyone"]


@pytest.mark.parametrize("fail_open, status", [(False, 503), (True, 200)], ids=["fail-closed", "fail-open"])
def test_redis_stopped_under_a_running_app_fails_as_configured_and_logs(start_server, caplog, fail_open, status):
    redis_server = start_server()
    app = limited_app(redis_server.port, ALGORITHMS["slide"], fail_open=fail_open)
    with serve(app) as http, caplog.at_level(logging.ERROR, logger="winlimit"):
        up = http.get("/")
        redis_server.stop()
        down = http.get("/")
    assert (up.status_code, up.headers["RateLimit"]) == (200, '"winlimit";r=2;t=60')
    assert down.status_code == status
    assert "RateLimit" not in down.headers
    assert (down.text == "hello") == fail_open
    logged = [rec.getMessage() for rec in caplog.records if rec.name == "winlimit"]
    assert len(logged) == 1 and "ConnectionError" in logged[0]
    assert ("failing open" if fail_open else "failing closed") in logged[0]


def test_fail_closed_is_the_default(start_server):
    redis_server = start_server()
    port = redis_server.port
    redis_server.stop()
    with serve(limited_app(port, ALGORITHMS["gcra"])) as http:
        assert http.get("/").status_code == 503


def test_fail_open_covers_redis_errors_not_bugs(server, r):
    def broken_check(lim, key):
        raise ValueError("a bug in the check")

    with serve(limited_app(server.port, broken_check, fail_open=True)) as http:
        assert http.get("/").status_code == 500


def test_a_fastapi_route_dependency_limits_that_route_only(server, r):
    app = FastAPI()
    limiter = limiter_on(server.port)

    @app.post("/sms", dependencies=[Depends(RateLimit(limiter, lambda lim, key: lim.slide(key, W, 2)))])
    async def send_sms():
        return {"sent": True}

    @app.get("/free")
    async def free():
        return {"ok": True}

    with serve(app) as http:
        sms = [http.post("/sms") for _ in range(3)]
        free_response = http.get("/free")
    assert [x.status_code for x in sms] == [200, 200, 429]
    assert sms[0].json() == {"sent": True}
    assert [x.headers["RateLimit"] for x in sms] == ['"winlimit";r=1;t=60', '"winlimit";r=0;t=60', '"winlimit";r=0;t=60']
    assert sms[2].headers["Retry-After"] == "60"
    assert sms[2].headers["RateLimit-Policy"] == '"winlimit";q=2;w=60'
    assert free_response.status_code == 200 and "RateLimit" not in free_response.headers


def test_a_fastapi_route_can_read_its_decision(server, r):
    app = FastAPI()
    limited = RateLimit(limiter_on(server.port), lambda lim, key: lim.gcra(key, W, 100, burst=10),
                        key_func=lambda request: request.query_params.get("user"))

    @app.get("/quota")
    async def quota(decision=Depends(limited)):
        return {"remaining": decision.remaining if decision else None}

    with serve(app) as http:
        assert http.get("/quota", params={"user": "a"}).json() == {"remaining": 9}
        assert http.get("/quota", params={"user": "a"}).json() == {"remaining": 8}
        assert http.get("/quota").json() == {"remaining": None}


@pytest.mark.parametrize("fail_open, status", [(False, 503), (True, 200)], ids=["fail-closed", "fail-open"])
def test_a_fastapi_route_with_redis_stopped_fails_as_configured(start_server, fail_open, status):
    redis_server = start_server()
    app = FastAPI()

    @app.get("/", dependencies=[Depends(RateLimit(limiter_on(redis_server.port),
                                                  lambda lim, key: lim.fixed(key, W, 5), fail_open=fail_open))])
    async def index():
        return {"ok": True}

    with serve(app) as http:
        assert http.get("/").status_code == 200
        redis_server.stop()
        response = http.get("/")
    assert response.status_code == status
    assert "RateLimit" not in response.headers
