"""on_reject: the response to a rejected request built by the app from the request and the
decision, with the rate-limit fields and Retry-After added unless it has them; on the ASGI
middleware and the FastAPI dependency under uvicorn and the WSGI middleware around Flask,
with a real httpx client over a real redis-server."""

import json

import flask
import pytest
from fastapi import Depends, FastAPI
from starlette.applications import Starlette
from starlette.responses import JSONResponse
from starlette.routing import Route

import test_asgi
import test_wsgi
from winlimit import asgi, wsgi

W = 60_000


def once_a_minute(lim, key):
    return lim.fixed(key, W, 1)


def body(request_path, decision):
    return {"error": "slow down", "path": request_path, "retry_after_ms": decision.retry_after_ms}


def json_429(request, decision):
    return JSONResponse(body(request.url.path, decision), status_code=429)


async def async_json_429(request, decision):
    return json_429(request, decision)


def flask_json_429(environ, decision):
    return flask.Response(json.dumps(body(environ["PATH_INFO"], decision)), status=429, mimetype="application/json")


def asgi_app(port, on_reject):
    app = Starlette(routes=[Route("/limited", test_asgi.hello)])
    app.add_middleware(asgi.RateLimitMiddleware, limiter=test_asgi.limiter_on(port), check=once_a_minute,
                       on_reject=on_reject)
    return app


def fastapi_app(port, on_reject, handler=True):
    app = FastAPI()
    if handler:
        app.add_exception_handler(asgi.Rejected, asgi.rejected_handler)

    @app.get("/limited", dependencies=[Depends(asgi.RateLimit(test_asgi.limiter_on(port), once_a_minute,
                                                                 on_reject=on_reject))])
    async def limited():
        return "hello"

    return app


def wsgi_app(port, on_reject):
    app = flask.Flask("on_reject")
    app.get("/limited")(lambda: "hello")
    app.wsgi_app = wsgi.RateLimitMiddleware(app.wsgi_app, test_wsgi.limiter_on(port), once_a_minute,
                                            on_reject=on_reject)
    return app


APPS = {
    "asgi": (asgi_app, test_asgi.serve, json_429),
    "asgi-async": (asgi_app, test_asgi.serve, async_json_429),
    "fastapi": (fastapi_app, test_asgi.serve, json_429),
    "fastapi-async": (fastapi_app, test_asgi.serve, async_json_429),
    "wsgi": (wsgi_app, test_wsgi.serve, flask_json_429),
}


@pytest.mark.parametrize("name", list(APPS))
def test_a_rejection_gets_the_apps_json_429_with_the_fields(name, server, r):
    make_app, serve, on_reject = APPS[name]
    with serve(make_app(server.port, on_reject)) as http:
        accepted, rejected = http.get("/limited"), http.get("/limited")
    assert (accepted.status_code, rejected.status_code) == (200, 429)
    assert rejected.headers["content-type"].startswith("application/json")
    sent = rejected.json()
    assert sent["error"] == "slow down" and sent["path"] == "/limited"
    # The decision handed over is the one the fields describe.
    assert 0 < sent["retry_after_ms"] <= W and rejected.headers["Retry-After"] == str(-(-sent["retry_after_ms"] // 1000))
    assert rejected.headers["RateLimit-Policy"] == '"winlimit";q=1;w=60'
    assert rejected.headers["RateLimit"].startswith('"winlimit";r=0;t=')


def test_fields_the_response_has_are_kept(server, r):
    def own_retry_after(request, decision):
        return JSONResponse({"error": "come back in two minutes"}, status_code=503, headers={"Retry-After": "120"})

    with test_asgi.serve(asgi_app(server.port, own_retry_after)) as http:
        http.get("/limited")
        rejected = http.get("/limited")
    assert (rejected.status_code, rejected.headers["Retry-After"]) == (503, "120")
    assert rejected.headers["RateLimit-Policy"] == '"winlimit";q=1;w=60'


def test_without_the_handler_fastapi_answers_429_with_the_fields(server, r):
    with test_asgi.serve(fastapi_app(server.port, json_429, handler=False)) as http:
        http.get("/limited")
        rejected = http.get("/limited")
    assert rejected.status_code == 429 and rejected.json() == {"detail": "Too Many Requests"}
    assert rejected.headers["Retry-After"] == "60" and "RateLimit" in rejected.headers


def test_the_default_is_429_with_a_short_text(server, r):
    with test_asgi.serve(asgi_app(server.port, None)) as http:
        http.get("/limited")
        rejected = http.get("/limited")
    assert (rejected.status_code, rejected.text) == (429, "Too Many Requests")


@pytest.mark.parametrize("name", ["asgi", "fastapi", "wsgi"])
def test_an_error_in_on_reject_is_the_apps_500(name, server, r):
    make_app, serve, _ = APPS[name]

    def broken(request, decision):
        raise RuntimeError("a bug in on_reject")

    with serve(make_app(server.port, broken)) as http:
        http.get("/limited")
        assert http.get("/limited").status_code == 500
