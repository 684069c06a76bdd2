"""An in-process `winlimit.memory.Limiter` as the limiter of every middleware (the ASGI
middleware, the FastAPI dependency, the WSGI middleware around Flask), for development and
single-process apps, as express-rate-limit's MemoryStore and limits' `memory://` are used:
the seeds' "3 SMS an hour per user" served by uvicorn or wsgiref to a real httpx client. No
Redis: a memory limiter has no timeout, breaker or fallback, and refuses one."""

import flask
import pytest
from fastapi import Depends, FastAPI
from starlette.applications import Starlette
from starlette.responses import PlainTextResponse
from starlette.routing import Route

import test_asgi
import test_wsgi
import winlimit.memory
from winlimit import asgi, wsgi

HOUR = 3_600_000


def three_an_hour(limiter, key):
    return limiter.slide(key, HOUR, 3, name="sms")


def by_user(request_or_environ):
    headers = getattr(request_or_environ, "headers", None)
    return headers["x-user"] if headers is not None else request_or_environ["HTTP_X_USER"]


def asgi_app(limiter):
    app = Starlette(routes=[Route("/sms", lambda request: PlainTextResponse("sent"), methods=["POST"])])
    app.add_middleware(asgi.RateLimitMiddleware, limiter=limiter, check=three_an_hour, key_func=by_user)
    return app


def fastapi_app(limiter):
    app = FastAPI()

    @app.post("/sms", dependencies=[Depends(asgi.RateLimit(limiter, three_an_hour, key_func=by_user))])
    async def sms():
        return "sent"

    return app


def wsgi_app(limiter):
    app = flask.Flask("sms")
    app.post("/sms")(lambda: "sent")
    app.wsgi_app = wsgi.RateLimitMiddleware(app.wsgi_app, limiter, three_an_hour, key_func=by_user)
    return app


APPS = {"asgi": (asgi_app, test_asgi.serve), "fastapi": (fastapi_app, test_asgi.serve),
        "wsgi": (wsgi_app, test_wsgi.serve)}


@pytest.mark.parametrize("framework", APPS)
def test_a_memory_limiter_limits_a_user_to_three_sms_an_hour(framework):
    make, serve = APPS[framework]
    with serve(make(winlimit.memory.Limiter())) as http:
        statuses = [http.post("/sms", headers={"x-user": "+4915112345678"}) for _ in range(4)]
        other = http.post("/sms", headers={"x-user": "+4915199999999"})
    assert [response.status_code for response in statuses] == [200, 200, 200, 429]
    assert statuses[2].headers["RateLimit"] == '"sms";r=0;t=3600'
    assert statuses[3].headers["Retry-After"] == "3600"
    assert other.status_code == 200


@pytest.mark.parametrize("make", [
    lambda limiter, fallback: asgi.RateLimitMiddleware(test_asgi.hello, limiter, three_an_hour, fallback=fallback),
    lambda limiter, fallback: asgi.RateLimit(limiter, three_an_hour, fallback=fallback),
    lambda limiter, fallback: wsgi.RateLimitMiddleware(flask.Flask("x").wsgi_app, limiter, three_an_hour,
                                                       fallback=fallback),
], ids=list(APPS))
def test_a_memory_limiter_refuses_a_fallback(make):
    with pytest.raises(ValueError, match="a winlimit.memory.Limiter decides in this process"):
        make(winlimit.memory.Limiter(), winlimit.memory.Limiter())
