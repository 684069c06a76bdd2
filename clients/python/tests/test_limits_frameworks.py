"""Flask-Limiter and slowapi on `winlimit+redis://`, each served for real (wsgiref; uvicorn)
to a real httpx client over this run's backend: their decorators with the moving and the
fixed window, and the headers each sends, while the decisions are winlimit's."""

import time

import flask
import pytest
from flask_limiter import Limiter as FlaskLimiter
from flask_limiter.util import get_remote_address
from slowapi import Limiter as SlowapiLimiter
from slowapi import _rate_limit_exceeded_handler
from slowapi.errors import RateLimitExceeded
from slowapi.util import get_remote_address as slowapi_remote_address
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse
from starlette.routing import Route

import test_asgi
import test_wsgi
import winlimit.limits  # noqa: F401  (registers the winlimit+redis:// scheme)
from conftest import BACKEND

STRATEGIES = ["moving-window", "fixed-window"]


def flask_app(port, strategy):
    app = flask.Flask("limited")
    limiter = FlaskLimiter(get_remote_address, app=app, storage_uri=f"winlimit+redis://127.0.0.1:{port}",
                           storage_options={"backend": BACKEND}, strategy=strategy, headers_enabled=True)

    @app.get("/sms")
    @limiter.limit("3 per hour")
    def sms():
        return "sent"

    return app


def slowapi_app(port, strategy):
    limiter = SlowapiLimiter(key_func=slowapi_remote_address, storage_uri=f"winlimit+redis://127.0.0.1:{port}",
                             storage_options={"backend": BACKEND}, strategy=strategy, headers_enabled=True)

    @limiter.limit("3/hour")
    async def sms(request: Request):
        return PlainTextResponse("sent")

    app = Starlette(routes=[Route("/sms", sms)])
    app.state.limiter = limiter
    app.add_exception_handler(RateLimitExceeded, _rate_limit_exceeded_handler)
    return app


SERVED = {"flask-limiter": (flask_app, test_wsgi.serve), "slowapi": (slowapi_app, test_asgi.serve)}


def four_requests(framework, port, strategy):
    make, serve = SERVED[framework]
    with serve(make(port, strategy)) as http:
        return [http.get("/sms") for _ in range(4)]


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("framework", list(SERVED))
def test_the_decorator_admits_its_limit_then_answers_429(framework, strategy, server, r):
    responses = four_requests(framework, server.port, strategy)
    assert [response.status_code for response in responses] == [200, 200, 200, 429]
    assert [response.headers["X-RateLimit-Remaining"] for response in responses] == ["2", "1", "0", "0"]
    assert {response.headers["X-RateLimit-Limit"] for response in responses} == {"3"}


@pytest.mark.parametrize("framework", list(SERVED))
def test_the_moving_window_is_winlimits_exact_log(framework, server, r):
    four_requests(framework, server.port, "moving-window")
    [key] = r.keys("LIMITS:moving:*")
    assert r.type(key) == b"zset" and r.zcard(key) == 3, "the admitted units; the 429 recorded nothing"


@pytest.mark.parametrize("framework", list(SERVED))
def test_the_reset_and_retry_after_come_from_the_oldest_unit(framework, server, r):
    """X-RateLimit-Reset is limits' window start plus the hour, in Unix seconds: the oldest
    unit's server time (its score) plus the hour, read on this machine's clock."""
    before = time.time()
    rejected = four_requests(framework, server.port, "moving-window")[-1]
    after = time.time()
    [key] = r.keys("LIMITS:moving:*")
    oldest = r.zrange(key, 0, 0, withscores=True)[0][1] / 1000
    reset = float(rejected.headers["X-RateLimit-Reset"])
    # Flask-Limiter rounds the reset up to a whole second; slowapi sends it as it is.
    assert oldest + 3600 - 0.001 <= reset <= oldest + 3600 + (after - before) + 1
    assert 3600 - (after - before) - 1 <= int(rejected.headers["Retry-After"]) <= 3600
