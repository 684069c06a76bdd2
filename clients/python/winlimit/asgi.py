"""ASGI middleware (Starlette, FastAPI) and a per-route dependency: a limit per client key,
RateLimit headers on every response, 429 with Retry-After on rejection.

    app.add_middleware(RateLimitMiddleware, limiter=winlimit.asyncio.Limiter(redis.asyncio.Redis()),
                       check=lambda limiter, key: limiter.slide(key, 60_000, 100))

Redis errors: fail closed by default (503, logged); `fail_open=True` lets requests through.
"""

from __future__ import annotations

import logging
from typing import Awaitable, Callable, Optional

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ._decision import Decision
from .asyncio import Limiter

__all__ = ["RateLimitMiddleware", "RateLimit"]

log = logging.getLogger("winlimit")

Check = Callable[[Limiter, str], Awaitable[Decision]]
KeyFunc = Callable[[Request], str]


def remote_address(request: Request) -> str:
    """The default client key: the peer's address."""
    return request.client.host if request.client else "unknown"


async def _decide(limiter: Limiter, check: Check, key: str, fail_open: bool) -> Optional[Decision]:
    """The decision, or None when Redis failed and the limiter fails open. Fail closed raises."""
    try:
        return await check(limiter, key)
    except Exception:
        log.exception("winlimit: rate limit check failed for %r (%s)", key, "fail open" if fail_open else "fail closed")
        if fail_open:
            return None
        raise


class RateLimitMiddleware:
    """Limits every HTTP request of the app by `key_func(request)` (prefixed with `prefix`)."""

    def __init__(self, app: ASGIApp, limiter: Limiter, check: Check, key_func: KeyFunc = remote_address,
                 prefix: str = "rl:", fail_open: bool = False):
        self.app = app
        self.limiter = limiter
        self.check = check
        self.key_func = key_func
        self.prefix = prefix
        self.fail_open = fail_open

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        key = self.prefix + self.key_func(Request(scope))
        try:
            decision = await _decide(self.limiter, self.check, key, self.fail_open)
        except Exception:
            await PlainTextResponse("rate limiter unavailable", status_code=503)(scope, receive, send)
            return
        if decision is None:
            await self.app(scope, receive, send)
            return
        headers = decision.headers()
        if not decision.allowed:
            await PlainTextResponse("Too Many Requests", status_code=429, headers=headers)(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message.setdefault("headers", [])
                message["headers"] = list(message["headers"]) + [
                    (name.lower().encode(), value.encode()) for name, value in headers.items()]
            await send(message)

        await self.app(scope, receive, send_with_headers)


class RateLimit:
    """A per-route limit for FastAPI: `@app.get("/", dependencies=[Depends(RateLimit(...))])`,
    or a parameter `decision: Decision = Depends(RateLimit(...))`."""

    def __init__(self, limiter: Limiter, check: Check, key_func: KeyFunc = remote_address,
                 prefix: str = "rl:", fail_open: bool = False):
        self.limiter = limiter
        self.check = check
        self.key_func = key_func
        self.prefix = prefix
        self.fail_open = fail_open

    async def __call__(self, request: Request, response: Response) -> Optional[Decision]:
        key = self.prefix + self.key_func(request)
        try:
            decision = await _decide(self.limiter, self.check, key, self.fail_open)
        except Exception:
            raise HTTPException(503, "rate limiter unavailable")
        if decision is None:
            return None
        headers = decision.headers()
        if not decision.allowed:
            raise HTTPException(429, "Too Many Requests", headers=headers)
        response.headers.update(headers)
        return decision
