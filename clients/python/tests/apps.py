"""The apps the middleware tests serve: one route answering "hello", limited by winlimit's
ASGI middleware, FastAPI dependency or WSGI middleware (around Flask), each layer with a
limiter of its own on a real redis-server; served by uvicorn or wsgiref (test_asgi.serve,
test_wsgi.serve) to a real httpx client."""

import contextlib

import flask
from fastapi import Depends, FastAPI
from starlette.applications import Starlette
from starlette.responses import PlainTextResponse
from starlette.routing import Route

import test_asgi
import test_wsgi
from winlimit import asgi, wsgi

FRAMEWORKS = ("asgi", "fastapi", "wsgi")
SLOW_MACHINE_TIMEOUT = 10.0


def _hello(request):
    return PlainTextResponse("hello")


def _asgi(port, layers, path, limiter_options, rejected_handler):
    app = Starlette(routes=[Route(path, _hello)])
    for check, options in layers:
        app.add_middleware(asgi.RateLimitMiddleware, limiter=test_asgi.limiter_on(port, **limiter_options),
                           check=check, **options)
    return app


def _fastapi(port, layers, path, limiter_options, rejected_handler):
    app = FastAPI()
    if rejected_handler:
        app.add_exception_handler(asgi.Rejected, asgi.rejected_handler)
    limits = [Depends(asgi.RateLimit(test_asgi.limiter_on(port, **limiter_options), check, **options))
              for check, options in layers]

    @app.get(path, dependencies=limits)
    async def hello():
        return "hello"

    return app


def _wsgi(port, layers, path, limiter_options, rejected_handler):
    app = flask.Flask("limited")
    app.get(path)(lambda: "hello")
    for check, options in layers:
        app.wsgi_app = wsgi.RateLimitMiddleware(app.wsgi_app, test_wsgi.limiter_on(port, **limiter_options), check,
                                                **options)
    return app


_MAKERS = {"asgi": (_asgi, test_asgi.serve), "fastapi": (_fastapi, test_asgi.serve), "wsgi": (_wsgi, test_wsgi.serve)}


@contextlib.contextmanager
def served(framework, port, check=None, layers=None, path="/", limiter_options=None, rejected_handler=True,
           host="127.0.0.1", **options):
    """An httpx client on an app of `framework` limited by `check` with the middleware
    `options`, or by several `layers` of (check, options); `limiter_options` go to each
    layer's limiter. FastAPI's app sends a `Rejected`'s response unless `rejected_handler` is
    false. The body of "hello" is JSON on FastAPI."""
    make, serve = _MAKERS[framework]
    # A test of the middleware's timeout gives its own; elsewhere a loaded machine's first call
    # (the backend found, the script loaded) must not outlast the default second.
    options.setdefault("timeout", SLOW_MACHINE_TIMEOUT)
    layers = [(c, {"timeout": SLOW_MACHINE_TIMEOUT, **o}) for c, o in layers] if layers else [(check, options)]
    app = make(port, layers, path, limiter_options or {}, rejected_handler)
    with serve(app, host=host) as http:
        yield http


def body_of(framework, response):
    """A response's text as the framework writes it: FastAPI's HTTPException and route return
    values are JSON."""
    if framework != "fastapi":
        return response.text
    return response.json()["detail"] if response.status_code >= 400 else response.json()
