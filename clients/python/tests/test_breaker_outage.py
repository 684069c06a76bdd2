"""The limiter's circuit breaker under a real app (uvicorn for ASGI, a threading WSGI server
for WSGI) over a real redis-server reached through a counting proxy of the test's own: the
server stopped by SIGSTOP (it hangs) or killed (its port closed). While the breaker is open no
call reaches the server, the fallback's decisions follow count= and block_ms as Redis's do,
one probe goes out per open period even under 50 concurrent requests, and Redis decides again
once a probe finds it back, with one warning, one info line and the breaker's metrics."""

import concurrent.futures
import contextlib
import logging
import os
import signal
import socketserver
import threading
import time
from wsgiref.simple_server import WSGIServer, make_server

import httpx
import pytest
import redis
import redis.asyncio
from prometheus_client import CollectorRegistry
from redis.backoff import NoBackoff
from redis.retry import Retry
from starlette.applications import Starlette
from starlette.responses import PlainTextResponse
from starlette.routing import Route

import test_asgi
import test_wsgi
import winlimit
import winlimit.asyncio
import winlimit.memory
from proxy import CountingProxy
from winlimit import asgi, wsgi
from winlimit.metrics import Metrics

from kit.ready import CALL_TIMEOUT, READY_TIMEOUT

LIMIT = 3
BLOCK_MS = 600_000
OPENED = "winlimit: Redis failed 3 times in a row ("


def by_user(request_or_environ):
    headers = getattr(request_or_environ, "headers", None)
    return headers["x-user"] if headers is not None else request_or_environ["HTTP_X_USER"]


def three_a_minute(limiter, key):
    return limiter.fixed(key, 60_000, LIMIT)


def asgi_app(limiter, **options):
    async def answer(request):
        return PlainTextResponse("fail" if request.url.path == "/fail" else "ok",
                                 status_code=500 if request.url.path == "/fail" else 200)

    app = Starlette(routes=[Route("/ok", answer), Route("/fail", answer)])
    app.add_middleware(asgi.RateLimitMiddleware, limiter=limiter, **options)
    return app


def wsgi_app(limiter, **options):
    def answer(environ, start_response):
        failed = environ["PATH_INFO"] == "/fail"
        start_response("500 Internal Server Error" if failed else "200 OK", [("Content-Type", "text/plain")])
        return [b"fail" if failed else b"ok"]

    return wsgi.RateLimitMiddleware(answer, limiter, **options)


class ThreadingServer(socketserver.ThreadingMixIn, WSGIServer):
    daemon_threads = True


@contextlib.contextmanager
def serve_threaded(app):
    """A WSGI server answering each request on a thread of its own (wsgiref's answers one at
    a time), with an httpx client on it."""
    server = make_server("127.0.0.1", 0, app, server_class=ThreadingServer, handler_class=test_wsgi.QuietHandler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{server.server_port}", timeout=READY_TIMEOUT,
                          limits=httpx.Limits(max_connections=100)) as http:
            yield http
    finally:
        server.shutdown()
        server.server_close()
        thread.join(10)


# No retries: redis-py's default retries a refused connection for seconds.
CLIENT = {"host": "127.0.0.1", "socket_timeout": 5, "retry": Retry(NoBackoff(), 0)}


def async_limiter(port, **kw):
    return winlimit.asyncio.Limiter(redis.asyncio.Redis(port=port, **CLIENT), **kw)


def sync_limiter(port, **kw):
    return winlimit.Limiter(redis.Redis(port=port, **CLIENT), **kw)


FRAMEWORKS = {"asgi": (asgi_app, test_asgi.serve, async_limiter), "wsgi": (wsgi_app, serve_threaded, sync_limiter)}


@contextlib.contextmanager
def outage(redis_server, mode):
    """The server hung (SIGSTOP) or gone (killed, its port closed) inside the block; resumed
    or started again on the same port after it."""
    port = redis_server.port
    if mode == "hung":
        os.kill(redis_server.pid, signal.SIGSTOP)
    else:
        redis_server.stop(keep_dir=True)
    try:
        yield
    finally:
        if mode == "hung":
            os.kill(redis_server.pid, signal.SIGCONT)
        else:
            redis_server.start(port)


def seen(response):
    """What a response says: its status, the remaining units and Retry-After."""
    rate = response.headers.get("RateLimit", "")
    remaining = int(rate.split(";r=")[1].split(";")[0]) if ";r=" in rate else None
    return response.status_code, remaining, response.headers.get("Retry-After")


def sequence(http, user):
    """One success, three failures, two more successes: under count="failures" only the
    failures use the limit, and the rejection that follows blocks the key for BLOCK_MS."""
    paths = ["/ok", "/fail", "/fail", "/fail", "/ok", "/ok"]
    return [seen(http.get(path, headers={"X-User": user})) for path in paths]


def winlimit_lines(caplog, level):
    return [r.getMessage() for r in caplog.records if r.name == "winlimit" and r.levelname == level]


@pytest.fixture
def proxied(start_server):
    redis_server = start_server()
    proxy = CountingProxy(redis_server.port)
    yield redis_server, proxy
    proxy.close()


@pytest.mark.parametrize("mode", ["hung", "gone"])
@pytest.mark.parametrize("framework", list(FRAMEWORKS))
def test_while_open_nothing_is_sent_and_the_fallback_decides_as_redis_does(framework, mode, proxied, caplog):
    caplog.set_level(logging.INFO, logger="winlimit")
    make_app, serve, make_limiter = FRAMEWORKS[framework]
    redis_server, proxy = proxied
    limiter = make_limiter(proxy.port, open_ms=30_000, fallback=winlimit.memory.Limiter())
    app = make_app(limiter, check=three_a_minute, key_func=by_user, count="failures", block_ms=BLOCK_MS, timeout=CALL_TIMEOUT)
    with serve(app) as http:
        by_redis = sequence(http, "a")
        with outage(redis_server, mode):
            # Three calls fail (refused, or no answer in CALL_TIMEOUT), each decided by the fallback.
            assert [seen(http.get("/ok", headers={"X-User": "b"}))[:2] for _ in range(3)] == [(200, LIMIT - 1)] * 3
            assert limiter.breakers.of("").state == "open"
            sent, connections = proxy.count, proxy.connections
            by_memory = sequence(http, "b")
            assert (proxy.count, proxy.connections) == (sent, connections)
    assert by_redis[:5] == by_memory[:5]
    assert by_redis[4] == (429, 0, str(BLOCK_MS // 1000))  # blocked, not just out of the window's units
    assert by_memory[5][:2] == (429, 0)
    warnings = winlimit_lines(caplog, "WARNING")
    assert len(warnings) == 1 and warnings[0].startswith(OPENED), warnings
    assert winlimit_lines(caplog, "ERROR") == []


def transitions(registry, to, cause):
    return registry.get_sample_value("winlimit_breaker_transitions_total",
                                     {"limiter": "winlimit", "to": to, "cause": cause}) or 0


@pytest.mark.parametrize("framework", list(FRAMEWORKS))
def test_one_probe_per_open_period_under_50_concurrent_requests_then_redis_again(framework, proxied, caplog):
    caplog.set_level(logging.INFO, logger="winlimit")
    make_app, serve, make_limiter = FRAMEWORKS[framework]
    redis_server, proxy = proxied
    registry = CollectorRegistry()
    limiter = make_limiter(proxy.port, failures=1, open_ms=100, fallback=winlimit.memory.Limiter(),
                           metrics=Metrics(registry))
    breaker = limiter.breakers.of("")
    probes = []
    breaker.listeners.append(lambda _b, to, cause: probes.append(to) if to == "half_open" else None)
    app = make_app(limiter, check=lambda lim, key: lim.fixed(key, 60_000, 1000), key_func=by_user, timeout=CALL_TIMEOUT)
    with serve(app) as http, concurrent.futures.ThreadPoolExecutor(50) as pool:
        assert http.get("/ok", headers={"X-User": "a"}).status_code == 200
        with outage(redis_server, "hung"):
            assert http.get("/ok", headers={"X-User": "a"}).status_code == 200  # no answer in time: opens
            sent = proxy.count
            time.sleep(breaker.open_for_ms() / 1000)
            # The first request after the open period is the probe; it hangs for its timeout
            # while 49 more arrive together.
            probe = pool.submit(http.get, "/ok", headers={"X-User": "a"})
            while breaker.state != "half_open" and not probe.done():
                time.sleep(0.005)
            burst = [pool.submit(http.get, "/ok", headers={"X-User": "a"}) for _ in range(49)]
            answers = [f.result() for f in [probe, *burst]]
            assert [a.status_code for a in answers] == [200] * 50
            assert all("RateLimit" in a.headers for a in answers)  # decided by the fallback
            during = len(probes)
            assert proxy.count - sent == during >= 1  # every command sent was a probe (or its HELLO)
        time.sleep(breaker.open_for_ms() / 1000)
        sent = proxy.count
        back = http.get("/ok", headers={"X-User": "c"})
        assert back.status_code == 200 and proxy.count > sent  # the probe, answered by Redis
        assert redis_server.client.exists("rl:c") == 1 and breaker.state == "closed"
    closed = winlimit_lines(caplog, "INFO")
    assert len(closed) == 1 and "closes after" in closed[0], closed
    assert len(winlimit_lines(caplog, "WARNING")) == 1
    assert registry.get_sample_value("winlimit_breaker_state", {"limiter": "winlimit"}) == 0
    assert transitions(registry, "open", "failures") == 1
    assert transitions(registry, "half_open", "open_elapsed") == during + 1
    assert transitions(registry, "open", "probe_failed") == during
    assert transitions(registry, "closed", "probe_succeeded") == 1


@pytest.mark.parametrize("fail_open, status", [(False, 503), (True, 200)], ids=["fail-closed", "fail-open"])
@pytest.mark.parametrize("framework", list(FRAMEWORKS))
def test_without_a_fallback_an_open_breaker_fails_fast_unsent_and_unlogged(framework, fail_open, status, proxied,
                                                                             caplog):
    caplog.set_level(logging.INFO, logger="winlimit")
    make_app, serve, make_limiter = FRAMEWORKS[framework]
    redis_server, proxy = proxied
    limiter = make_limiter(proxy.port, failures=1, open_ms=30_000)
    app = make_app(limiter, check=three_a_minute, key_func=by_user, timeout=CALL_TIMEOUT, fail_open=fail_open)
    with serve(app) as http, outage(redis_server, "hung"):
        assert http.get("/ok", headers={"X-User": "a"}).status_code == status  # no answer in time: opens
        sent, connections = proxy.count, proxy.connections
        answers = [http.get("/ok", headers={"X-User": "a"}) for _ in range(5)]
        assert [(a.status_code, "RateLimit" in a.headers) for a in answers] == [(status, False)] * 5
        assert (proxy.count, proxy.connections) == (sent, connections)
    errors = winlimit_lines(caplog, "ERROR")
    assert len(errors) == 1 and f"TimeoutError: no answer from Redis within {CALL_TIMEOUT * 1000:.0f} ms" in errors[0], errors
    warnings = winlimit_lines(caplog, "WARNING")
    assert len(warnings) == 1 and warnings[0].startswith("winlimit: Redis failed 1 time in a row ("), warnings
