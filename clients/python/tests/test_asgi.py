"""The ASGI middleware and the FastAPI dependency, served by a real uvicorn server and hit by
a real httpx client; Redis stopped for fail-open and fail-closed."""

import contextlib
import threading
import time

import httpx
import pytest
import redis.asyncio
import uvicorn
from fastapi import Depends, FastAPI
from starlette.applications import Starlette
from starlette.responses import PlainTextResponse
from starlette.routing import Route

import harness
import winlimit.asyncio
from winlimit.asgi import RateLimit, RateLimitMiddleware

W = 60_000


@contextlib.contextmanager
def serve(app):
    """Run app under uvicorn on a free loopback port in a thread; yield its base URL."""
    port = harness.free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="off"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        assert time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)


def hello(request):
    return PlainTextResponse("hello")


def app_with_middleware(redis_port, limit=3, fail_open=False):
    app = Starlette(routes=[Route("/", hello)])
    limiter = winlimit.asyncio.Limiter(redis.asyncio.Redis(port=redis_port, socket_timeout=2))
    app.add_middleware(RateLimitMiddleware, limiter=limiter, fail_open=fail_open,
                       check=lambda limiter, key: limiter.slide(key, W, limit))
    return app


def test_the_limit_holds_and_every_response_carries_the_headers(server):
    server.client.flushall()
    with serve(app_with_middleware(server.port)) as url, httpx.Client(base_url=url) as http:
        responses = [http.get("/") for _ in range(4)]
    assert [r.status_code for r in responses] == [200, 200, 200, 429]
    assert [r.headers["RateLimit"] for r in responses[:3]] == [
        '"winlimit";r=2;t=60', '"winlimit";r=1;t=60', '"winlimit";r=0;t=60']
    assert all(r.headers["RateLimit-Policy"] == '"winlimit";q=3;w=60' for r in responses)
    assert responses[0].text == "hello"
    assert 1 <= int(responses[3].headers["Retry-After"]) <= 60
    assert server.client.zcard("rl:127.0.0.1") == 3


def test_the_client_key_is_a_function_of_the_request(server):
    server.client.flushall()
    app = Starlette(routes=[Route("/", hello)])
    limiter = winlimit.asyncio.Limiter(redis.asyncio.Redis(port=server.port))
    app.add_middleware(RateLimitMiddleware, limiter=limiter, key_func=lambda req: req.headers.get("x-user", "anon"),
                       check=lambda limiter, key: limiter.fixed(key, W, 1))
    with serve(app) as url, httpx.Client(base_url=url) as http:
        codes = [http.get("/", headers={"x-user": user}).status_code for user in ("a", "b", "a")]
    assert codes == [200, 200, 429]


@pytest.mark.parametrize("fail_open, status", [(False, 503), (True, 200)], ids=["fail-closed", "fail-open"])
def test_a_stopped_redis_fails_as_configured(start_server, fail_open, status):
    down = start_server()
    port = down.port
    down.stop()
    with serve(app_with_middleware(port, fail_open=fail_open)) as url, httpx.Client(base_url=url) as http:
        response = http.get("/")
    assert response.status_code == status
    assert "RateLimit" not in response.headers


def test_fastapi_route_dependency(server):
    server.client.flushall()
    app = FastAPI()
    limiter = winlimit.asyncio.Limiter(redis.asyncio.Redis(port=server.port))
    limited = RateLimit(limiter, lambda limiter, key: limiter.gcra(key, W, 2))

    @app.get("/limited", dependencies=[Depends(limited)])
    async def limited_route():
        return {"ok": True}

    @app.get("/free")
    async def free_route():
        return {"ok": True}

    with serve(app) as url, httpx.Client(base_url=url) as http:
        codes = [http.get("/limited").status_code for _ in range(3)]
        last = http.get("/limited")
        free = http.get("/free")
    assert codes == [200, 200, 429] and last.status_code == 429
    assert int(last.headers["Retry-After"]) >= 1
    assert free.status_code == 200 and "RateLimit" not in free.headers
