"""Rate limiting for ASGI apps (Starlette, FastAPI): a middleware for every request and a
FastAPI dependency for one route. Install with the `asgi` extra.

    limiter = winlimit.asyncio.Limiter(redis.asyncio.Redis())
    app.add_middleware(RateLimitMiddleware, limiter=limiter,
                       check=lambda limiter, key: limiter.slide(key, 60_000, 100))

Each request is checked under `prefix + key_func(request)` (the client's address by default,
an IPv6 one as its /64) with `check`, any call of the limiter. An accepted request gets the
rate-limit header fields on its response (`headers=`: draft-11 by default); a rejected one is
answered 429 with them and `Retry-After`, or as `on_reject` builds it. When Redis fails or
gives no answer within `timeout` seconds (default 1), the request is answered 503 (fail
closed, the default) or let through without the fields (`fail_open=True`); either way the
error is logged on the `winlimit` logger. With `shadow=True` every request is checked and
counted, but a rejected one is let through as if accepted (the fields without `Retry-After`,
never a 429), counted in `shadow_rejections` and warned about on the `winlimit` logger once
per key per quiet period: a new limit can be watched before it is enforced.
"""

from __future__ import annotations

import inspect
from typing import Any, AsyncIterator, Awaitable, Callable, Dict, Optional, Union, cast

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ._decision import Decision
from ._guard import Guard
from ._keys import ip_key
from ._options import MiddlewareOptions, options_of
from ._styles import FIELDS, combined, merged
from ._verdict import Verdict
from . import memory
from .asyncio import Limiter

__all__ = ["Check", "KeyFunc", "MiddlewareOptions", "OnReject", "RateLimit", "RateLimitMiddleware", "Rejected",
           "rejected_handler", "remote_address"]

Check = Union[Callable[[Limiter, str], Awaitable[Decision]], Callable[[Limiter, str, Request], Awaitable[Decision]]]
"""`check(limiter, key)`, or `check(limiter, key, request)` for limits that depend on the
request (told apart by the signature): the call that decides, plain or async, e.g.
`lambda l, key: l.gcra(key, 60_000, 100)`."""

OnReject = Callable[[Request, Decision], Union[Response, Awaitable[Response]]]
"""`on_reject(request, decision)`: the response to a rejected request (may be async); the
rate-limit fields and Retry-After are added unless it has them."""

KeyFunc = Callable[[Request], Union[Optional[str], Awaitable[Optional[str]]]]
"""`key_func(request)`: whose limit the request counts against (may be async). None leaves the
request unlimited, e.g. for health checks."""


def remote_address(request: Request) -> Optional[str]:
    """The peer's IP address, an IPv6 one as its /64 (`winlimit.ip_key`): one IPv6 host
    usually owns a whole /64. Behind a proxy that is the proxy's; use uvicorn's
    `--proxy-headers` (with `--forwarded-allow-ips`) or a key_func of your own."""
    address = _peer(request)
    return None if address is None else ip_key(address)


def _peer(request: Request) -> Optional[str]:
    return request.client.host if request.client else None


_AnyLimiter = Union[Limiter, memory.Limiter]
"""What a middleware or dependency calls: a `winlimit.asyncio.Limiter`, or an in-process
`winlimit.memory.Limiter` (for development and single-process apps)."""


def _guard(limiter: _AnyLimiter, check: Optional[Check], options: Optional[MiddlewareOptions],
           given: Dict[str, Any]) -> Guard:
    return Guard(limiter, options_of(check, options, given), _peer, remote_address)


async def rejection(guard: Guard, request: Request, verdict: Verdict, decision: Optional[Decision]) -> Response:
    """The response to a rejected request: on_reject's, with the fields it lacks, or 429
    with a short text."""
    on_reject = guard.options.on_reject
    if on_reject is None or decision is None:
        return PlainTextResponse("Too Many Requests", status_code=429, headers=verdict.headers)
    response = on_reject(request, decision)
    if inspect.isawaitable(response):
        response = await response
    for name, value in verdict.headers.items():
        if name not in response.headers:
            response.headers[name] = value
    return cast(Response, response)


class RateLimitMiddleware:
    """An ASGI middleware limiting every HTTP request of the app (WebSocket and lifespan
    events pass untouched).

    The options come as keyword arguments, or as one `MiddlewareOptions` (`options=`; a
    keyword given beside it wins). limiter: a `winlimit.asyncio.Limiter` (its circuit breaker
    is shared by every middleware and call using it), or a `winlimit.memory.Limiter` deciding
    in this process (no Redis, so no timeout, breaker or fallback: `fallback=` is refused); check: `check(limiter, key)`, the call
    that decides;
    key_func: the request's key (default: the client's address, an IPv6 one as its network of
    `ipv6_subnet` bits, 64 by default, 128 for the whole address; None: not limited);
    prefix: put before the key (default `"rl:"`); fail_open: let requests through when Redis
    fails (default False: answer 503); shadow: check and count, but let every request through
    (`shadow_rejections` counts those it would have rejected); timeout: seconds each Redis
    call may take before it counts as failed, for the limiter's breaker too (default 1.0;
    None waits as long as the client does);
    ipv6_subnet: see key_func; headers: the header style ("draft-11", "draft-7", "legacy" or
    None); on_reject: `on_reject(request, decision)`, the response to a rejected request;
    metrics: a `winlimit.metrics.Metrics` counting each request's decision; fallback: a
    `winlimit.memory.Limiter` that decides the very command (its COST, REFUND and BLOCK too,
    so `count=` and `block_ms` hold) while Redis fails or gives no answer in time and while
    the limiter's breaker is open, instead of failing open or closed (the limiter's own
    `fallback=` when not given). It counts per process: with N processes, up to N times the
    limit passes while Redis is down.

    count: which requests use up the limit: `"all"` (the default), `"failures"` or
    `"successes"`. Every request is counted before the app runs; once the app starts its
    response (before it leaves), one that does not count gets its units back (REFUND). A
    failure is a status of 400 or more, or what `is_failure(status)` says; an app that
    raises before answering is a failure. block_ms: every call
    of the check asks BLOCK ms unless it gives its own `block_ms`.
    """

    def __init__(self, app: ASGIApp, limiter: _AnyLimiter, check: Optional[Check] = None, *,
                 options: Optional[MiddlewareOptions] = None, **kwargs: Any):
        self.app = app
        self.guard = _guard(limiter, check, options, kwargs)

    @property
    def shadow_rejections(self) -> int:
        """Requests shadow mode let through that the limit would have rejected."""
        return self.guard.shadow_rejections

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request = Request(scope)  # without receive: the body stays the app's
        outcome = await self.guard.decide(request)
        verdict, decision, _ = outcome
        if verdict.status == 503:
            await PlainTextResponse("rate limiter unavailable", status_code=503)(scope, receive, send)
            return
        if verdict.status == 429:
            await (await rejection(self.guard, request, verdict, decision))(scope, receive, send)
            return
        style = self.guard.judge.style
        started = False

        async def send_with_fields(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                # Settled before the response leaves: the client's next request sees the refund.
                started = True
                await self.guard.settle(outcome, int(message["status"]))
                if verdict.headers:
                    lines = [(k.decode("latin-1"), v.decode("latin-1")) for k, v in message.get("headers", [])]
                    both = combined(lines, verdict.headers, style)
                    message = {**message, "headers": [(k.lower().encode("latin-1"), v.encode("latin-1"))
                                                      for k, v in both]}
            await send(message)

        try:
            await self.app(scope, receive, send_with_fields)
        except Exception:
            if not started:  # the app raised before answering: a failure
                await self.guard.settle(outcome, None)
            raise


class RateLimit:
    """A FastAPI dependency limiting one route (same arguments as the middleware):

        @app.post("/sms", dependencies=[Depends(RateLimit(limiter, lambda l, key: l.slide(key, 3_600_000, 3)))])

    or as a parameter, `decision: Optional[Decision] = Depends(RateLimit(...))` (None when the
    request was not limited). A rejection raises HTTPException 429 with the header fields;
    an accepted request gets them on its response, unless the route returns a Response
    object of its own (FastAPI then leaves that response as it is). With `on_reject`, it
    raises `Rejected`, which `app.add_exception_handler(Rejected, rejected_handler)` answers
    with on_reject's response (without the handler, FastAPI answers it as an HTTPException).

    `count=`, `is_failure=` and `block_ms=` as for the middleware; the status is what the
    route raises (an HTTPException's), sets on its `response` parameter, or its decorator's
    `status_code` (200 by default): a Response object the route returns is not seen. With
    `Depends(RateLimit(...), scope="function")` (FastAPI 0.121+) the refund lands before the
    response is sent; with the default scope, just after.
    """

    def __init__(self, limiter: _AnyLimiter, check: Optional[Check] = None, *,
                 options: Optional[MiddlewareOptions] = None, **kwargs: Any):
        self.guard = _guard(limiter, check, options, kwargs)

    @property
    def shadow_rejections(self) -> int:
        """Requests shadow mode let through that the limit would have rejected."""
        return self.guard.shadow_rejections

    async def __call__(self, request: Request, response: Response) -> AsyncIterator[Optional[Decision]]:
        # A dependency with yield: the code after it runs once the route has answered or raised.
        outcome = await self.guard.decide(request)
        verdict, decision, _ = outcome
        if verdict.status == 503:
            raise HTTPException(503, "rate limiter unavailable")
        # The fields of the route's earlier dependencies, already decided for this request: a
        # rejection carries them too, as an accepted answer does.
        on = {name: response.headers[name] for name in FIELDS if name in response.headers}
        verdict = Verdict(verdict.status, merged(on, verdict.headers, self.guard.judge.style))
        if verdict.status == 429 and self.guard.options.on_reject is not None:
            raise Rejected(await rejection(self.guard, request, verdict, decision), verdict.headers)
        if verdict.status == 429:
            raise HTTPException(429, "Too Many Requests", headers=verdict.headers)
        for name in on:
            del response.headers[name]
        response.headers.update(verdict.headers)
        try:
            yield decision
        except Exception as e:
            await self.guard.settle(outcome, e.status_code if isinstance(e, HTTPException) else None)
            raise
        await self.guard.settle(outcome, _route_status(request, response))


def _route_status(request: Request, response: Response) -> int:
    """The status the route answered: the one it set on `response`, else its decorator's."""
    status = cast(Optional[int], response.status_code)  # FastAPI leaves it None when unset
    if status is None:
        status = getattr(request.scope.get("route"), "status_code", None)
    return status if isinstance(status, int) else 200


class Rejected(HTTPException):
    """A rejection the dependency's `on_reject` built the response of: `response`. An
    HTTPException with that status and the rate-limit fields, for apps without the handler."""

    def __init__(self, response: Response, fields: Dict[str, str]):
        super().__init__(response.status_code, "Too Many Requests", headers=fields)
        self.response = response


async def rejected_handler(request: Request, exc: Exception) -> Response:
    """The exception handler that sends a `Rejected`'s own response:
    `app.add_exception_handler(Rejected, rejected_handler)`."""
    if not isinstance(exc, Rejected):
        raise exc
    return exc.response
