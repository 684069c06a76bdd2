"""check(limiter, key, request): limits that depend on the request, told apart from the
two-argument form by the signature; two tiers chosen by a request header, on the ASGI
middleware and the FastAPI dependency under uvicorn and the WSGI middleware around Flask,
with a real httpx client over a real redis-server."""

import functools

import flask
import pytest
from fastapi import Depends, FastAPI
from starlette.applications import Starlette
from starlette.routing import Route

import test_asgi
import test_wsgi
from winlimit import asgi, wsgi
from winlimit._guard import takes_request

W = 60_000
LIMITS = {"free": 1, "paid": 3}


def tiered(lim, key, request):
    tier = request.headers.get("x-tier", "free")
    return lim.fixed(key, W, LIMITS[tier], name=tier)


async def async_tiered(lim, key, request):
    return await tiered(lim, key, request)


def wsgi_tiered(lim, key, environ):
    tier = environ.get("HTTP_X_TIER", "free")
    return lim.fixed(key, W, LIMITS[tier], name=tier)


def by_user_asgi(request):
    return request.headers["x-user"]


def asgi_app(port, check):
    app = Starlette(routes=[Route("/", test_asgi.hello)])
    app.add_middleware(asgi.RateLimitMiddleware, limiter=test_asgi.limiter_on(port), check=check, key_func=by_user_asgi)
    return app


def fastapi_app(port, check):
    app = FastAPI()

    @app.get("/", dependencies=[Depends(asgi.RateLimit(test_asgi.limiter_on(port), check, key_func=by_user_asgi))])
    async def root():
        return "hello"

    return app


def wsgi_app(port, check):
    app = flask.Flask("tiers")
    app.get("/")(lambda: "hello")
    app.wsgi_app = wsgi.RateLimitMiddleware(app.wsgi_app, test_wsgi.limiter_on(port), check,
                                            key_func=lambda environ: environ["HTTP_X_USER"])
    return app


APPS = {
    "asgi": (asgi_app, test_asgi.serve, tiered),
    "asgi-async": (asgi_app, test_asgi.serve, async_tiered),
    "fastapi": (fastapi_app, test_asgi.serve, tiered),
    "wsgi": (wsgi_app, test_wsgi.serve, wsgi_tiered),
}


@pytest.mark.parametrize("name", list(APPS))
def test_two_tiers_chosen_by_a_header_get_their_own_limits(name, server, r):
    make_app, serve, check = APPS[name]
    with serve(make_app(server.port, check)) as http:
        free = [http.get("/", headers={"x-user": "a"}) for _ in range(2)]
        paid = [http.get("/", headers={"x-user": "b", "x-tier": "paid"}) for _ in range(4)]
    assert [x.status_code for x in free] == [200, 429]
    assert [x.status_code for x in paid] == [200, 200, 200, 429]
    assert free[0].headers["RateLimit-Policy"] == '"free";q=1;w=60'
    assert paid[0].headers["RateLimit-Policy"] == '"paid";q=3;w=60'


class Callable3:
    def __call__(self, lim, key, request):
        return None


@pytest.mark.parametrize("check, takes", [
    (lambda lim, key: None, False),
    (lambda lim, key, request: None, True),
    (lambda *args: None, True),
    (lambda lim, key, *, name="x": None, False),
    (functools.partial(lambda prefix, lim, key, request: None, "p"), True),
    (functools.partial(lambda prefix, lim, key: None, "p"), False),
    (Callable3(), True),
    (tiered, True),
    (async_tiered, True),
], ids=["two", "three", "varargs", "keyword-only", "partial-three", "partial-two", "callable", "def", "async-def"])
def test_the_form_is_told_by_the_signature(check, takes):
    assert takes_request(check) is takes
