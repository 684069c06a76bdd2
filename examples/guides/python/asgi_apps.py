"""The ASGI pieces of docs/guides/python.md, each a small FastAPI app built around a given
limiter; examples/tests/test_python_guide.py serves each to a real HTTP client over a real
Redis. The guide includes the parts between the snippet markers."""

from fastapi import Depends, FastAPI, HTTPException
from pydantic import BaseModel

# --8<-- [start:imports]
import winlimit.memory
from winlimit.asgi import RateLimit, RateLimitMiddleware
from winlimit.metrics import Metrics
# --8<-- [end:imports]


def check(limits, key):
    return limits.slide(key, 60_000, 3)


def every_request(limiter):
    app = FastAPI()
    # --8<-- [start:middleware]
    app.add_middleware(RateLimitMiddleware, limiter=limiter,
                       check=lambda limits, key: limits.gcra(key, 60_000, 100, burst=10))
    # --8<-- [end:middleware]
    app.get("/")(lambda: {"ok": True})
    return app


class LoginForm(BaseModel):
    user: str
    password: str


async def check_password(user, password):
    return password == "right"


def login_app(limiter):
    app = FastAPI()
    # --8<-- [start:login]
    login_limit = RateLimit(limiter, lambda limits, key: limits.fixed(key, 900_000, 5),
                            prefix="login:", count="failures", block_ms=900_000)

    @app.post("/login", dependencies=[Depends(login_limit, scope="function")])
    async def login(form: LoginForm):
        if not await check_password(form.user, form.password):
            raise HTTPException(401, "wrong user or password")   # counts: the 5th blocks for 15 min
        return {"token": "..."}                                  # refunded: does not count
    # --8<-- [end:login]
    return app


def tiers_app(limiter):
    app = FastAPI()
    # --8<-- [start:tiers]
    LIMITS = {"free": 2, "paid": 4}

    def by_tier(limiter, key, request):
        tier = "paid" if request.headers.get("x-api-tier") == "paid" else "free"
        return limiter.slide(key, 60_000, LIMITS[tier], name=tier)

    app.add_middleware(RateLimitMiddleware, limiter=limiter, check=by_tier)
    # --8<-- [end:tiers]
    app.get("/")(lambda: {"ok": True})
    return app


def legacy_app(limiter):
    app = FastAPI()
    # --8<-- [start:legacy]
    app.add_middleware(RateLimitMiddleware, limiter=limiter, check=check, headers="legacy")
    # --8<-- [end:legacy]
    app.get("/")(lambda: {"ok": True})
    return app


def custom_rejection_app(limiter):
    app = FastAPI()
    # --8<-- [start:on-reject]
    from starlette.responses import JSONResponse
    from winlimit.asgi import Rejected, rejected_handler

    def too_many(request, decision):
        return JSONResponse({"error": "rate limited", "retry_after_ms": decision.retry_after_ms}, status_code=429)

    app.add_middleware(RateLimitMiddleware, limiter=limiter, check=check, on_reject=too_many)
    # The FastAPI dependency raises Rejected(response); this handler sends that response:
    app.add_exception_handler(Rejected, rejected_handler)
    # --8<-- [end:on-reject]
    app.get("/")(lambda: {"ok": True})
    return app


def fallback_app(limiter):
    app = FastAPI()
    # --8<-- [start:fallback]
    app.add_middleware(RateLimitMiddleware, limiter=limiter, check=check,
                       fallback=winlimit.memory.Limiter())
    # --8<-- [end:fallback]
    app.get("/")(lambda: {"ok": True})
    return app


def shadow_app(limiter):
    """The app and the middleware object, whose shadow_rejections the test reads."""
    app = FastAPI()
    app.get("/")(lambda: {"ok": True})
    # --8<-- [start:shadow]
    limiting = RateLimitMiddleware(app, limiter=limiter, check=lambda limits, key: limits.slide(key, 60_000, 3),
                                   shadow=True)
    # later: requests it let through that the limit would have rejected
    print(limiting.shadow_rejections)
    # --8<-- [end:shadow]
    return limiting


def metrics_app(limiter, registry):
    app = FastAPI()
    # --8<-- [start:metrics]
    metrics = Metrics(registry=registry)  # Metrics(): on prometheus_client's default registry
    app.add_middleware(RateLimitMiddleware, limiter=limiter, check=check, metrics=metrics)
    # or count every call of a limiter: winlimit.Limiter(redis.Redis(), metrics=metrics)
    # --8<-- [end:metrics]
    app.get("/")(lambda: {"ok": True})
    return app


def unblock_app(limiter):
    app = FastAPI()
    app.get("/", dependencies=[Depends(RateLimit(limiter, check))])(lambda: {"ok": True})
    # --8<-- [start:reset]
    @app.post("/admin/unblock/{address}")
    async def unblock(address: str):
        return {"removed": await limiter.reset(f"rl:{address}")}
    # --8<-- [end:reset]
    return app

