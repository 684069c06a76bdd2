"""check(limiter, key, request): limits that depend on the request, told apart from the
two-argument form by the signature; two tiers chosen by a request header, on the ASGI
middleware and the FastAPI dependency under uvicorn and the WSGI middleware around Flask,
with a real httpx client over a real redis-server."""

import functools

import pytest

from apps import served
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


# name -> (framework, check, key_func)
APPS = {
    "asgi": ("asgi", tiered, lambda request: request.headers["x-user"]),
    "asgi-async": ("asgi", async_tiered, lambda request: request.headers["x-user"]),
    "fastapi": ("fastapi", tiered, lambda request: request.headers["x-user"]),
    "wsgi": ("wsgi", wsgi_tiered, lambda environ: environ["HTTP_X_USER"]),
}


@pytest.mark.parametrize("name", list(APPS))
def test_two_tiers_chosen_by_a_header_get_their_own_limits(name, server, r):
    framework, check, key_func = APPS[name]
    with served(framework, server.port, check, key_func=key_func) as http:
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
