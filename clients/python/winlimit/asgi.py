"""Rate limiting for ASGI apps (Starlette, FastAPI): a middleware for every request and a
FastAPI dependency for one route. Install with the `asgi` extra.

    limiter = winlimit.asyncio.Limiter(redis.asyncio.Redis())
    app.add_middleware(RateLimitMiddleware, limiter=limiter,
                       check=lambda limiter, key: limiter.slide(key, 60_000, 100))

Each request is checked under `prefix + key_func(request)` (the client's address by default)
with `check`, any call of the limiter. An accepted request gets the `RateLimit-Policy` and
`RateLimit` header fields on its response; a rejected one is answered 429 with them and
`Retry-After`. When Redis fails, the request is answered 503 (fail closed, the default) or
let through without the fields (`fail_open=True`); either way the error is logged on the
`winlimit` logger.
"""

from __future__ import annotations

import inspect
import logging
from typing import Awaitable, Callable, List, Optional, Tuple, Union

import redis
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ._decision import Decision
from .asyncio import Limiter

__all__ = ["Check", "KeyFunc", "RateLimit", "RateLimitMiddleware", "remote_address"]

log = logging.getLogger("winlimit")

Check = Callable[[Limiter, str], Awaitable[Decision]]
"""`check(limiter, key)`: the call that decides, e.g. `lambda l, key: l.gcra(key, 60_000, 100)`."""

KeyFunc = Callable[[Request], Union[Optional[str], Awaitable[Optional[str]]]]
"""`key_func(request)`: whose limit the request counts against (may be async). None leaves the
request unlimited, e.g. for health checks."""


def remote_address(request: Request) -> Optional[str]:
    """The default key: the peer's IP address. Behind a proxy that is the proxy's; use
    uvicorn's `--proxy-headers` (with `--forwarded-allow-ips`) or a key_func of your own."""
    return request.client.host if request.client else None


class _Guard:
    """What the middleware and the dependency share: the key, the call, the failure policy."""

    def __init__(self, limiter: Limiter, check: Check, key_func: KeyFunc, prefix: str, fail_open: bool):
        self.limiter = limiter
        self.check = check
        self.key_func = key_func
        self.prefix = prefix
        self.fail_open = fail_open

    async def decide(self, request: Request) -> Tuple[str, Optional[Decision]]:
        """("limited", decision), ("unlimited", None) when key_func gave None or Redis failed
        and the guard fails open, ("unavailable", None) when Redis failed and it fails closed.
        Errors that are not Redis's (a bug in key_func or check) propagate."""
        key = self.key_func(request)
        if inspect.isawaitable(key):
            key = await key
        if key is None:
            return "unlimited", None
        try:
            return "limited", await self.check(self.limiter, self.prefix + key)
        except (redis.RedisError, OSError) as e:
            # Connection refused, timeouts, OOM, a server without the module: the limiter
            # cannot decide. Logged without a traceback: an outage would print one per request.
            log.error("winlimit: rate limit check for %r failed, failing %s: %s: %s",
                      self.prefix + key, "open" if self.fail_open else "closed", type(e).__name__, e)
            return ("unlimited" if self.fail_open else "unavailable"), None


class RateLimitMiddleware:
    """An ASGI middleware limiting every HTTP request of the app (WebSocket and lifespan
    events pass untouched).

    limiter: a `winlimit.asyncio.Limiter`; check: `check(limiter, key)`, the call that decides;
    key_func: the request's key (default: the client's address; None: not limited);
    prefix: put before the key (default `"rl:"`); fail_open: let requests through when Redis
    fails (default False: answer 503).
    """

    def __init__(self, app: ASGIApp, limiter: Limiter, check: Check, key_func: KeyFunc = remote_address,
                 prefix: str = "rl:", fail_open: bool = False):
        self.app = app
        self.guard = _Guard(limiter, check, key_func, prefix, fail_open)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        outcome, decision = await self.guard.decide(Request(scope))
        if outcome == "unavailable":
            await PlainTextResponse("rate limiter unavailable", status_code=503)(scope, receive, send)
            return
        if decision is None:
            await self.app(scope, receive, send)
            return
        headers = decision.headers()
        if not decision.allowed:
            await PlainTextResponse("Too Many Requests", status_code=429, headers=headers)(scope, receive, send)
            return
        fields: List[Tuple[bytes, bytes]] = [(k.lower().encode(), v.encode()) for k, v in headers.items()]

        async def send_with_fields(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), *fields]}
            await send(message)

        await self.app(scope, receive, send_with_fields)


class RateLimit:
    """A FastAPI dependency limiting one route (same arguments as the middleware):

        @app.post("/sms", dependencies=[Depends(RateLimit(limiter, lambda l, key: l.slide(key, 3_600_000, 3)))])

    or as a parameter, `decision: Optional[Decision] = Depends(RateLimit(...))` (None when the
    request was not limited). A rejection raises HTTPException 429 with the header fields;
    an accepted request gets them on its response, unless the route returns a Response
    object of its own (FastAPI then leaves that response as it is).
    """

    def __init__(self, limiter: Limiter, check: Check, key_func: KeyFunc = remote_address,
                 prefix: str = "rl:", fail_open: bool = False):
        self.guard = _Guard(limiter, check, key_func, prefix, fail_open)

    async def __call__(self, request: Request, response: Response) -> Optional[Decision]:
        outcome, decision = await self.guard.decide(request)
        if outcome == "unavailable":
            raise HTTPException(503, "rate limiter unavailable")
        if decision is None:
            return None
        headers = decision.headers()
        if not decision.allowed:
            raise HTTPException(429, "Too Many Requests", headers=headers)
        response.headers.update(headers)
        return decision
