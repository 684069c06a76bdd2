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
`fallback=winlimit.memory.Limiter()` decided in this process; while the limiter's circuit
breaker is open, at once and without a call to Redis;
`shadow=True` lets every request through and counts the would-be rejections in
`shadow_rejections`. The options `ipv6_subnet`, `headers`, `on_reject` (`on_reject(environ,
decision)`, a WSGI app), `metrics` and `fallback` are the ASGI middleware's.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, Iterable, List, Optional, Tuple, Union, cast

from . import Limiter, memory
from ._decision import Decision
from ._guard import Guard
from ._keys import ip_key
from ._options import MiddlewareOptions, options_of
from ._styles import combined

__all__ = ["Check", "KeyFunc", "MiddlewareOptions", "OnReject", "RateLimitMiddleware", "remote_address"]

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
    """`REMOTE_ADDR`, the peer's address (a proxy's, behind one), an IPv6 one as its /64
    (`winlimit.ip_key`)."""
    address = _peer(environ)
    return None if address is None else ip_key(address)


def _peer(environ: Environ) -> Optional[str]:
    address = environ.get("REMOTE_ADDR")
    return address if isinstance(address, str) and address else None


class RateLimitMiddleware:
    """A WSGI middleware limiting every request of `app`: the options of `winlimit.asgi`, as
    keyword arguments or one `MiddlewareOptions` (`options=`); `count=`, `is_failure=` and
    `block_ms=` too: a request that does not count is refunded when the app calls
    start_response, before the response leaves; an app that raises before that is a
    failure. `timeout` bounds each Redis call by running it on a pool thread (a sync call
    cannot be interrupted: the thread waits on, up to the client's socket_timeout). `limiter`
    is a `winlimit.Limiter`, or a `winlimit.memory.Limiter` deciding in this process (no
    Redis, so no timeout, breaker or fallback: `fallback=` is refused)."""

    def __init__(self, app: WSGIApp, limiter: Union[Limiter, memory.Limiter], check: Optional[Check] = None, *,
                 options: Optional[MiddlewareOptions] = None, **kwargs: Any):
        self.app = app
        self.guard = Guard(limiter, options_of(check, options, kwargs), _peer, remote_address)

    @property
    def shadow_rejections(self) -> int:
        """Requests shadow mode let through that the limit would have rejected."""
        return self.guard.shadow_rejections

    def __call__(self, environ: Environ, start_response: StartResponse) -> Iterable[bytes]:
        # A bug in key_func or check propagates: the server's ordinary 500.
        outcome = self.guard.decide_sync(environ)
        verdict, decision, _ = outcome
        on_reject = self.guard.options.on_reject
        if verdict.status == 429 and on_reject is not None and decision is not None:
            return cast(OnReject, on_reject)(environ, decision)(environ, _adding_missing(start_response, verdict.headers))
        if verdict.status in REASONS:
            body = b"Too Many Requests" if verdict.status == 429 else b"rate limiter unavailable"
            start_response(REASONS[verdict.status], [("Content-Type", "text/plain; charset=utf-8"),
                                                     ("Content-Length", str(len(body))),
                                                     *verdict.headers.items()])
            return [body]
        added, style = verdict.headers, self.guard.judge.style
        settled = [not self.guard.may_refund(outcome)]

        def settle(status: Optional[int]) -> None:
            if not settled[0]:
                settled[0] = True
                self.guard.settle_sync(outcome, status)

        def start_with_fields(status: str, headers: List[Tuple[str, str]], *exc_info: Any) -> Any:
            # Settled before the response leaves: the client's next request sees the refund.
            settle(int(status.split(" ", 1)[0]))
            return start_response(status, combined(headers, added, style) if added else headers, *exc_info)

        try:
            return self.app(environ, start_with_fields)
        except Exception:
            settle(None)  # the app raised before answering: a failure
            raise


def _adding_missing(start_response: StartResponse, fields: Dict[str, str]) -> StartResponse:
    """start_response with the rate-limit fields the response does not send itself."""
    def start(status: str, headers: List[Tuple[str, str]], *exc_info: Any) -> Any:
        sent = {name.lower() for name, _ in headers}
        return start_response(status, [*headers, *((k, v) for k, v in fields.items() if k.lower() not in sent)], *exc_info)

    return start
