"""on_reject: the response to a rejected request built by the app from the request and the
decision, with the rate-limit fields and Retry-After added unless it has them; on the ASGI
middleware and the FastAPI dependency under uvicorn and the WSGI middleware around Flask,
with a real httpx client over a real redis-server."""

import json

import flask
import pytest
from starlette.responses import JSONResponse

from apps import served

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


# name -> (framework, on_reject)
APPS = {
    "asgi": ("asgi", json_429),
    "asgi-async": ("asgi", async_json_429),
    "fastapi": ("fastapi", json_429),
    "fastapi-async": ("fastapi", async_json_429),
    "wsgi": ("wsgi", flask_json_429),
}


def twice(framework, port, on_reject, **kw):
    """Two GETs of /limited, once a minute allowed: (accepted, rejected)."""
    with served(framework, port, once_a_minute, path="/limited", on_reject=on_reject, **kw) as http:
        return http.get("/limited"), http.get("/limited")


@pytest.mark.parametrize("name", list(APPS))
def test_a_rejection_gets_the_apps_json_429_with_the_fields(name, server, r):
    framework, on_reject = APPS[name]
    accepted, rejected = twice(framework, server.port, on_reject)
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

    _, rejected = twice("asgi", server.port, own_retry_after)
    assert (rejected.status_code, rejected.headers["Retry-After"]) == (503, "120")
    assert rejected.headers["RateLimit-Policy"] == '"winlimit";q=1;w=60'


def test_without_the_handler_fastapi_answers_429_with_the_fields(server, r):
    _, rejected = twice("fastapi", server.port, json_429, rejected_handler=False)
    assert rejected.status_code == 429 and rejected.json() == {"detail": "Too Many Requests"}
    assert rejected.headers["Retry-After"] == "60" and "RateLimit" in rejected.headers


def test_the_default_is_429_with_a_short_text(server, r):
    _, rejected = twice("asgi", server.port, None)
    assert (rejected.status_code, rejected.text) == (429, "Too Many Requests")


@pytest.mark.parametrize("name", ["asgi", "fastapi", "wsgi"])
def test_an_error_in_on_reject_is_the_apps_500(name, server, r):
    def broken(request, decision):
        raise RuntimeError("a bug in on_reject")

    assert twice(name, server.port, broken)[1].status_code == 500
