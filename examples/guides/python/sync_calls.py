"""The sync calls of docs/guides/python.md, each a function of a redis-py client;
examples/tests/test_python_guide.py runs each against a real Redis and checks what it returns.
The guide includes the parts between the snippet markers."""

from flask import Flask

# --8<-- [start:imports]
import winlimit
import winlimit.asyncio
import winlimit.memory
from winlimit.wsgi import RateLimitMiddleware
# --8<-- [end:imports]


def backends(client):
    # --8<-- [start:backends]
    winlimit.Limiter(client)                        # backend="auto", the default
    winlimit.Limiter(client, backend="module")      # the module, or ModuleNotLoaded: never without it
    winlimit.Limiter(client, backend="functions")   # FCALL / FCALL_RO (Redis 7.0+, Valkey)
    limiter = winlimit.Limiter(client, backend="scripts")   # EVALSHA (Redis 6.0 and 6.2, or FUNCTION blocked)
    print(limiter.slide("k", 60_000, 10).backend)   # "module", "functions" or "scripts"
    # --8<-- [end:backends]
    return limiter


def calls(client):
    # --8<-- [start:calls]
    limiter = winlimit.Limiter(client)             # redis.Redis(), or redis.cluster.RedisCluster(...)
    d = limiter.slide("sms:+4915112345678", 3_600_000, 3)
    print(d.allowed, d.limit, d.remaining, d.retry_after_ms, d.reset_after_ms)

    limiter.slide("api:42", [(1_000, 10), (3_600_000, 1_000)])   # several windows, one atomic call
    limiter.slide("feed:42", 60_000, 1_000_000, bucket=1_000)    # BUCKET: a key of its own (a ring, not a log)
    limiter.slide("sms:+49151", 3_600_000, 3, cost=2)            # COST
    limiter.fixed("login:10.0.0.7", 900_000, 5, align=True)      # ALIGN
    limiter.gcra("upload:42", 60_000, 100, burst=10, cost=3)     # BURST
    limiter.slide("sms:+49151", 3_600_000, 3, peek=True)         # WINLIMIT.SLIDE_RO: records nothing
    limiter.fixed("login:10.0.0.7", 900_000, 5, block_ms=900_000)  # BLOCK: once rejected, refused 15 min
    limiter.gcra("jobs:acme", 60_000, 100, refund=1)             # REFUND: give one unit back
    # --8<-- [end:calls]
    return d


def refund_a_refused_job(limiter, api, job):
    # --8<-- [start:refund]
    d = limiter.gcra("jobs:acme", 60_000, 100)         # take a unit before calling the API
    if d.allowed:
        response = api.submit(job)
        if response.status_code == 429:                # the API refused it: it did not use the quota
            limiter.gcra("jobs:acme", 60_000, 100, refund=1)
    # --8<-- [end:refund]


def wait_for_a_turn(limiter):
    # --8<-- [start:wait]
    d = limiter.gcra("api:openai", 60_000, 500, wait=5.0)   # up to 5 s from now
    if d.allowed: ...                                      # d.waited_ms: how long it slept
    # --8<-- [end:wait]
    return d


def cached_rejections(client):
    # --8<-- [start:cache]
    limiter = winlimit.Limiter(client, cache_rejections=True)    # client: redis.Redis()
    limiter.slide("login:10.0.0.7", 60_000, 5)   # rejected: Redis says retry in 41 s
    d = limiter.slide("login:10.0.0.7", 60_000, 5)   # answered locally for those 41 s (d.cached)
    # --8<-- [end:cache]
    return d


def breaker_options(async_client, client):
    # --8<-- [start:breaker]
    limiter = winlimit.asyncio.Limiter(async_client, timeout=0.5, failures=3, open_ms=1_000,
                                       max_open_ms=30_000, fallback=winlimit.memory.Limiter())
    limiter = winlimit.Limiter(client, breaker=False)   # no breaker; client: redis.Redis(socket_timeout=0.5)
    # --8<-- [end:breaker]
    return limiter


def flask_app(client):
    app = Flask(__name__)
    app.get("/")(lambda: {"ok": True})
    # --8<-- [start:wsgi]
    limiter = winlimit.Limiter(client)          # client: redis.Redis()
    check = lambda limits, key: limits.slide(key, 60_000, 3)  # noqa: E731
    app.wsgi_app = RateLimitMiddleware(app.wsgi_app, limiter, check)      # Flask
    # Django, in wsgi.py: application = RateLimitMiddleware(get_wsgi_application(), limiter, check)
    # --8<-- [end:wsgi]
    return app

