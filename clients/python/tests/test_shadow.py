"""Shadow mode in the ASGI middleware and the FastAPI dependency, over real uvicorn and
httpx: over the limit everything is 200 with the fields and no Retry-After, the would-be
rejections are counted, and warned about once per key per retry_after_ms."""

import logging

from fastapi import Depends, FastAPI
from starlette.applications import Starlette
from starlette.routing import Route

from test_asgi import W, fields, hello, limiter_on, serve
from winlimit.asgi import RateLimit, RateLimitMiddleware


def shadow_warnings(caplog):
    return [r for r in caplog.records if r.name == "winlimit" and r.levelno == logging.WARNING]


def test_over_the_limit_everything_passes_with_the_fields_and_is_counted(server, r, caplog):
    caplog.set_level(logging.WARNING, logger="winlimit")
    middleware = RateLimitMiddleware(Starlette(routes=[Route("/", hello)]), limiter=limiter_on(server.port),
                                     check=lambda lim, key: lim.slide(key, W, 2), shadow=True)
    with serve(middleware) as http:
        responses = [http.get("/") for _ in range(5)]
    assert [x.status_code for x in responses] == [200] * 5
    assert all(x.text == "hello" and "Retry-After" not in x.headers for x in responses)
    assert [fields(x)["RateLimit"][0][1]["r"] for x in responses] == [1, 0, 0, 0, 0]
    assert middleware.shadow_rejections == 3
    # Accepted units were recorded; the rejected ones were not.
    assert r.zcard("rl:127.0.0.1") == 2


def test_one_warning_per_key_per_retry_after(server, r, caplog):
    caplog.set_level(logging.WARNING, logger="winlimit")
    middleware = RateLimitMiddleware(Starlette(routes=[Route("/", hello)]), limiter=limiter_on(server.port),
                                     check=lambda lim, key: lim.fixed(key, W, 1), shadow=True,
                                     key_func=lambda request: request.headers["x-user"])
    with serve(middleware) as http:
        for user in ["a", "a", "a", "b", "b", "a"]:
            assert http.get("/", headers={"x-user": user}).status_code == 200
    warned = [record.getMessage() for record in shadow_warnings(caplog)]
    assert len(warned) == 2 and '"rl:a"' in warned[0] and '"rl:b"' in warned[1]
    assert middleware.shadow_rejections == 4


def test_the_fastapi_dependency_in_shadow_mode_never_answers_429(server, r):
    limit = RateLimit(limiter_on(server.port), lambda lim, key: lim.gcra(key, W, 1), shadow=True)
    app = FastAPI()

    @app.get("/", dependencies=[Depends(limit)])
    async def root():
        return {"ok": True}

    with serve(app) as http:
        responses = [http.get("/") for _ in range(3)]
    assert [x.status_code for x in responses] == [200] * 3
    assert all("RateLimit" in x.headers and "Retry-After" not in x.headers for x in responses)
    assert limit.shadow_rejections == 2
