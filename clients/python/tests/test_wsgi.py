"""The WSGI middleware around a real Flask app and a real Django app, each served by a real
WSGI server (wsgiref) on a free loopback port and called with httpx, over a real
redis-server; Redis stopped under a running app for fail-open and fail-closed."""

import contextlib
import logging
import socket
import threading
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

import django
import flask
import httpx
import pytest
import redis
from django.conf import settings
from django.http import HttpResponse
from django.urls import path
from redis.backoff import NoBackoff
from redis.retry import Retry

import winlimit
from winlimit.wsgi import RateLimitMiddleware, remote_address

from kit.ready import READY_TIMEOUT

W = 60_000


class QuietHandler(WSGIRequestHandler):
    def log_message(self, format, *args):
        pass


class IPv6Server(WSGIServer):
    address_family = socket.AF_INET6


@contextlib.contextmanager
def serve(app, host="127.0.0.1"):
    """Serve a WSGI app with wsgiref in a thread (IPv4, or `host="::1"`); yield an httpx client
    on it."""
    server_class = IPv6Server if ":" in host else WSGIServer
    server = make_server(host, 0, app, server_class=server_class, handler_class=QuietHandler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        url_host = f"[{host}]" if ":" in host else host
        with httpx.Client(base_url=f"http://{url_host}:{server.server_port}", timeout=READY_TIMEOUT) as http:
            yield http
    finally:
        server.shutdown()
        server.server_close()
        thread.join(10)


def limiter_on(port, **kw):
    # No retries: redis-py's default retries a refused connection for seconds.
    return winlimit.Limiter(redis.Redis(host="127.0.0.1", port=port, socket_timeout=2, retry=Retry(NoBackoff(), 0)),
                            **kw)


def flask_app():
    app = flask.Flask("limited")

    @app.get("/")
    def hello():
        return flask.Response("hello", headers={"X-App": "kept"})

    @app.get("/health")
    def health():
        return "ok"

    @app.get("/bug")
    def bug():
        raise RuntimeError("a bug in the app")

    return app


def django_app():
    if not settings.configured:
        settings.configure(DEBUG=False, SECRET_KEY="tests", ALLOWED_HOSTS=["*"], ROOT_URLCONF=__name__,
                           MIDDLEWARE=[], LOGGING_CONFIG=None)
        django.setup()
    from django.core.wsgi import get_wsgi_application
    return get_wsgi_application()


def hello_view(request):
    return HttpResponse("hello", headers={"X-App": "kept"})


def health_view(request):
    return HttpResponse("ok")


def bug_view(request):
    raise RuntimeError("a bug in the app")


urlpatterns = [path("", hello_view), path("health", health_view), path("bug", bug_view)]


def wrapped(framework, port, check=lambda lim, key: lim.slide(key, W, 2), **kw):
    if framework == "flask":
        app = flask_app()
        app.wsgi_app = RateLimitMiddleware(app.wsgi_app, limiter_on(port), check, **kw)
        return app, app.wsgi_app
    middleware = RateLimitMiddleware(django_app(), limiter_on(port), check, **kw)
    return middleware, middleware


@pytest.fixture(params=["flask", "django"])
def framework(request):
    return request.param


def test_the_limit_holds_and_the_429_carries_the_fields(framework, server, r):
    app, _ = wrapped(framework, server.port)
    with serve(app) as http:
        responses = [http.get("/") for _ in range(3)]
    assert [x.status_code for x in responses] == [200, 200, 429]
    assert [x.headers["RateLimit"] for x in responses] == ['"winlimit";r=1;t=60', '"winlimit";r=0;t=60',
                                                           '"winlimit";r=0;t=60']
    assert all(x.headers["RateLimit-Policy"] == '"winlimit";q=2;w=60' for x in responses)
    assert responses[2].headers["Retry-After"] == "60" and responses[2].text == "Too Many Requests"
    assert r.zcard("rl:127.0.0.1") == 2


def test_an_accepted_response_is_the_apps_with_the_fields_added(framework, server, r):
    app, _ = wrapped(framework, server.port)
    with serve(app) as http:
        response = http.get("/")
    assert (response.status_code, response.text, response.headers["X-App"]) == (200, "hello", "kept")
    assert "Retry-After" not in response.headers and response.headers["RateLimit"] == '"winlimit";r=1;t=60'


def test_a_key_of_none_leaves_the_request_unlimited(framework, server, r):
    app, _ = wrapped(framework, server.port, check=lambda lim, key: lim.gcra(key, W, 1),
                     key_func=lambda environ: None if environ["PATH_INFO"].endswith("health") else "everyone")
    with serve(app) as http:
        codes = [http.get(p).status_code for p in ("/", "/", "/health", "/health")]
        health = http.get("/health")
    assert codes == [200, 429, 200, 200] and "RateLimit" not in health.headers
    assert r.keys("*") == [b"rl:everyone"]


@pytest.mark.parametrize("fail_open, status", [(False, 503), (True, 200)], ids=["fail-closed", "fail-open"])
def test_redis_stopped_fails_as_configured_and_logs(framework, start_server, caplog, fail_open, status):
    redis_server = start_server()
    app, _ = wrapped(framework, redis_server.port, fail_open=fail_open)
    with serve(app) as http:
        assert http.get("/").status_code == 200
        redis_server.stop()
        with caplog.at_level(logging.ERROR, logger="winlimit"):
            response = http.get("/")
    assert response.status_code == status and "RateLimit" not in response.headers
    assert any("failing " + ("open" if fail_open else "closed") in rec.getMessage() for rec in caplog.records)


def test_an_app_bug_is_a_500_and_a_bug_in_check_too(framework, server, r):
    app, _ = wrapped(framework, server.port)
    with serve(app) as http:
        assert http.get("/bug").status_code == 500
    broken, _ = wrapped(framework, server.port, check=lambda lim, key: 1 / 0, fail_open=True)
    with serve(broken) as http:
        assert http.get("/").status_code == 500


def test_shadow_mode_lets_everything_through_and_counts(framework, server, r, caplog):
    caplog.set_level(logging.WARNING, logger="winlimit")
    app, middleware = wrapped(framework, server.port, shadow=True)
    with serve(app) as http:
        responses = [http.get("/") for _ in range(5)]
    assert [x.status_code for x in responses] == [200] * 5
    assert all("Retry-After" not in x.headers and "RateLimit" in x.headers for x in responses)
    assert middleware.shadow_rejections == 3
    warnings = [rec for rec in caplog.records if rec.name == "winlimit" and rec.levelno == logging.WARNING]
    assert len(warnings) == 1 and '"rl:127.0.0.1"' in warnings[0].getMessage()


def test_remote_address_reads_remote_addr():
    assert remote_address({"REMOTE_ADDR": "192.0.2.7"}) == "192.0.2.7"
    assert remote_address({}) is None
