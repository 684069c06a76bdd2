"""Rate limiting for WSGI apps (Flask, Django, any other), over the sync `winlimit.Limiter`:

    limiter = winlimit.Limiter(redis.Redis())
    app.wsgi_app = RateLimitMiddleware(app.wsgi_app, limiter,
                                       lambda l, key: l.slide(key, 60_000, 100))   # Flask
    application = RateLimitMiddleware(get_wsgi_application(), limiter, check)      # Django

The same behaviour as the ASGI middleware (`winlimit.asgi`): each request is checked under
`prefix + key_func(environ)`; accepted, its response gets `RateLimit-Policy` and `RateLimit`;
rejected, it is answered 429 with them and `Retry-After`; when Redis fails or gives no answer
within `timeout` seconds (default 1), 503 (fail closed, the default) or let through without
the fields (`fail_open=True`), logged on the `winlimit` logger, or with
`fallback=winlimit.memory.Limiter()` decided in this process until Redis answers again;
`shadow=True` lets every request through and counts the would-be rejections in
`shadow_rejections`. The options `ipv6_subnet`, `headers`, `on_reject` (`on_reject(environ,
decision)`, a WSGI app), `metrics` and `fallback` are the ASGI middleware's.
"""

from __future__ import annotations

import concurrent.futures
import contextvars
import time
from typing import TYPE_CHECKING, Any, Callable, Dict, Iterable, List, Optional, Tuple, Union, cast

import redis

from . import Limiter
from ._decision import Decision
from ._guard import DEFAULT_TIMEOUT, CheckTimedOut, Guard, takes_request
from ._keys import DEFAULT_IPV6_SUBNET, address_key, check_subnet
from ._refund import Counting, IsFailure, refund_failed
from ._styles import DEFAULT_STYLE, combined

if TYPE_CHECKING:
    from . import memory
    from .metrics import Metrics

__all__ = ["Check", "KeyFunc", "OnReject", "RateLimitMiddleware", "remote_address"]

Environ = Dict[str, Any]
StartResponse = Callable[..., Any]
WSGIApp = Callable[[Environ, StartResponse], Iterable[bytes]]

Check = Union[Callable[[Limiter, str], Decision], Callable[[Limiter, str, Environ], Decision]]
"""`check(limiter, key)`, or `check(limiter, key, environ)` for limits that depend on the
request (told apart by the signature): the call that decides, e.g.
`lambda l, key: l.gcra(key, 60_000, 100)`."""

OnReject = Callable[[Environ, Decision], WSGIApp]
"""`on_reject(environ, decision)`: a WSGI app answering a rejected request (a Flask or Werkzeug
`Response` is one); the rate-limit fields and Retry-After are added unless it sends them."""

KeyFunc = Callable[[Environ], Optional[str]]
"""`key_func(environ)`: whose limit the request counts against; None leaves it unlimited."""

REASONS = {429: "429 Too Many Requests", 503: "503 Service Unavailable"}


def remote_address(environ: Environ) -> Optional[str]:
    """`REMOTE_ADDR`, the peer's address (a proxy's, behind one)."""
    address = environ.get("REMOTE_ADDR")
    return address if isinstance(address, str) and address else None


class RateLimitMiddleware:
    """A WSGI middleware limiting every request of `app` (arguments as in `winlimit.asgi`,
    `count=`, `is_failure=` and `block_ms=` too: a request that does not count is refunded
    when the app calls start_response, before the response leaves; an app that raises
    before that is a failure)."""

    def __init__(self, app: WSGIApp, limiter: Limiter, check: Check, key_func: KeyFunc = remote_address,
                 prefix: str = "rl:", fail_open: bool = False, shadow: bool = False,
                 timeout: Optional[float] = DEFAULT_TIMEOUT, ipv6_subnet: int = DEFAULT_IPV6_SUBNET,
                 headers: Optional[str] = DEFAULT_STYLE, on_reject: Optional[OnReject] = None,
                 metrics: Optional["Metrics"] = None, fallback: Optional["memory.Limiter"] = None,
                 count: str = "all", is_failure: Optional[IsFailure] = None, block_ms: Optional[int] = None):
        self.app = app
        self.counting = Counting(count, is_failure, block_ms)
        self.on_reject = on_reject
        self.limiter = limiter
        self.check = check
        self.with_request = takes_request(check)
        self.key_func = address_key(remote_address, ipv6_subnet) if key_func is remote_address else key_func
        check_subnet(ipv6_subnet)
        self.guard = Guard(prefix, fail_open, shadow, timeout, headers, metrics=metrics, fallback=fallback)
        # A sync call cannot be interrupted: with a timeout it runs on a pool thread, and the
        # request stops waiting for it when the time is up (the thread waits on).
        self._pool = concurrent.futures.ThreadPoolExecutor(thread_name_prefix="winlimit") if self.guard.timeout else None

    @property
    def shadow_rejections(self) -> int:
        """Requests shadow mode let through that the limit would have rejected."""
        return self.guard.shadow_rejections

    def __call__(self, environ: Environ, start_response: StartResponse) -> Iterable[bytes]:
        # A bug in key_func or check propagates: the server's ordinary 500.
        key = self.key_func(environ)
        if key is None:
            return self.app(environ, start_response)
        key = self.guard.prefix + key
        started: Optional[float] = time.perf_counter()
        decision: Optional[Decision] = None
        limiter = self.counting.recorder(self.limiter)
        try:
            decision = self._within_time(limiter, key, environ)
            self.guard.redis_answered()
        except (redis.RedisError, OSError, CheckTimedOut) as e:
            if self.guard.falls_back(e):
                limiter = self.guard.fallback  # without count= refunds or block_ms: it counts every request
                decision, started = self._checked(limiter, key, environ), None
            else:
                verdict = self.guard.failed(key, e, self.limiter.name)
        if decision is not None:
            verdict = self.guard.judged(key, decision, started)
            if verdict.status == 429 and self.on_reject is not None:
                return self.on_reject(environ, decision)(environ, _adding_missing(start_response, verdict.headers))
        if verdict.status in REASONS:
            body = b"Too Many Requests" if verdict.status == 429 else b"rate limiter unavailable"
            start_response(REASONS[verdict.status], [("Content-Type", "text/plain; charset=utf-8"),
                                                     ("Content-Length", str(len(body))),
                                                     *verdict.headers.items()])
            return [body]
        added, style = verdict.headers, self.guard.style
        settled = [not self.counting.may_refund(decision, limiter)]

        def settle(status: Optional[int]) -> None:
            if not settled[0]:
                settled[0] = True
                _refund_now(self.counting.due(decision, limiter, status))

        def start_with_fields(status: str, headers: List[Tuple[str, str]], *exc_info: Any) -> Any:
            # Settled before the response leaves: the client's next request sees the refund.
            settle(int(status.split(" ", 1)[0]))
            return start_response(status, combined(headers, added, style) if added else headers, *exc_info)

        try:
            return self.app(environ, start_with_fields)
        except Exception:
            settle(None)  # the app raised before answering: a failure
            raise

    def _within_time(self, limiter: Any, key: str, environ: Environ) -> Decision:
        """The check's decision, or CheckTimedOut once the timeout has passed."""
        if self._pool is None or self.guard.timeout is None:
            return self._checked(limiter, key, environ)
        future = self._pool.submit(contextvars.copy_context().run, self._checked, limiter, key, environ)
        try:
            return future.result(timeout=self.guard.timeout)
        except concurrent.futures.TimeoutError:
            if future.done():
                raise  # the check's own TimeoutError, not the wait's
            raise CheckTimedOut(self.guard.timeout) from None



    def _checked(self, limiter: Any, key: str, environ: Environ) -> Decision:
        """The check's call on `limiter` (the Redis limiter or the fallback)."""
        if self.with_request:
            return cast(Callable[[Any, str, Environ], Decision], self.check)(limiter, key, environ)
        return cast(Callable[[Any, str], Decision], self.check)(limiter, key)


def _refund_now(refunds: List[Callable[[], Any]]) -> None:
    for refund in refunds:
        try:
            refund()
        except Exception as e:  # noqa: BLE001  (logged: the response is already decided)
            refund_failed(e)


def _adding_missing(start_response: StartResponse, fields: Dict[str, str]) -> StartResponse:
    """start_response with the rate-limit fields the response does not send itself."""
    def start(status: str, headers: List[Tuple[str, str]], *exc_info: Any) -> Any:
        sent = {name.lower() for name, _ in headers}
        return start_response(status, [*headers, *((k, v) for k, v in fields.items() if k.lower() not in sent)], *exc_info)

    return start
