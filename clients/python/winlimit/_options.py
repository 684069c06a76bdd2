"""The options of a middleware or FastAPI dependency, as one value: the ASGI middleware, the
dependency and the WSGI middleware take the same keyword arguments, or one
`MiddlewareOptions` (`options=`), and hand it to the guard (`_guard.Guard`)."""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import TYPE_CHECKING, Any, Callable, Dict, Optional

from ._keys import DEFAULT_IPV6_SUBNET, check_subnet
from ._refund import Counting, IsFailure
from ._styles import DEFAULT_STYLE, check_style

if TYPE_CHECKING:
    from . import memory
    from .metrics import Metrics

DEFAULT_TIMEOUT = 1.0
"""Seconds the middleware waits for Redis before counting the check as failed."""


def check_timeout(timeout: Optional[float]) -> Optional[float]:
    """`timeout` as given, once it is seconds above 0 (or None: wait as long as the client)."""
    if timeout is None:
        return None
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)):
        raise TypeError(f"timeout must be a number of seconds, not {type(timeout).__name__}")
    if not 0 < timeout < float("inf"):
        raise ValueError(f"timeout must be more than 0 seconds, not {timeout}")
    return float(timeout)


@dataclass(frozen=True)
class MiddlewareOptions:
    """What a middleware does, checked when made (see `winlimit.asgi.RateLimitMiddleware`).

    check: the call that decides, `check(limiter, key)` or `check(limiter, key, request)`;
    key_func: the request's key (None: the client's address, an IPv6 one as its network of
    `ipv6_subnet` bits); prefix: put before the key; fail_open: let requests through when
    Redis fails (else 503); shadow: check and count, but let every request through; timeout:
    seconds each Redis call may take (None: as long as the client waits); headers: the
    header style; on_reject: the response to a rejected request; metrics: counts each
    request's decision; fallback: a `winlimit.memory.Limiter` deciding while Redis fails (it
    becomes the limiter's fallback for this middleware's calls); count, is_failure,
    block_ms: which requests use up the limit, and the BLOCK of every call of the check.
    """

    check: Callable[..., Any]
    key_func: Optional[Callable[[Any], Any]] = None
    prefix: str = "rl:"
    fail_open: bool = False
    shadow: bool = False
    timeout: Optional[float] = DEFAULT_TIMEOUT
    ipv6_subnet: int = DEFAULT_IPV6_SUBNET
    headers: Optional[str] = DEFAULT_STYLE
    on_reject: Optional[Callable[..., Any]] = None
    metrics: Optional["Metrics"] = None
    fallback: Optional["memory.Limiter"] = None
    count: str = "all"
    is_failure: Optional[IsFailure] = None
    block_ms: Optional[int] = None

    def __post_init__(self) -> None:
        if not callable(self.check):
            raise TypeError("check must be a callable: check(limiter, key), the call that decides")
        if self.key_func is not None and not callable(self.key_func):
            raise TypeError("key_func must be a callable taking the request")
        if not isinstance(self.prefix, str):
            raise TypeError(f"prefix must be a str, not {type(self.prefix).__name__}")
        object.__setattr__(self, "timeout", check_timeout(self.timeout))
        check_subnet(self.ipv6_subnet)
        check_style(self.headers)
        self.counting()  # checks count, is_failure and block_ms

    def counting(self) -> Counting:
        return Counting(self.count, self.is_failure, self.block_ms)


NAMES = frozenset(f.name for f in fields(MiddlewareOptions))


def options_of(check: Optional[Callable[..., Any]], options: Optional[MiddlewareOptions],
               given: Dict[str, Any]) -> MiddlewareOptions:
    """One options value from a middleware's arguments: `options=`, with `check` and the
    keyword arguments given beside it taking its place."""
    unknown = sorted(set(given) - NAMES)
    if unknown:
        raise TypeError(f"unknown middleware option{'s' if len(unknown) > 1 else ''}: {', '.join(unknown)}")
    if check is not None:
        given = {**given, "check": check}
    if options is None:
        if "check" not in given:
            raise TypeError("a middleware needs check= (or options=MiddlewareOptions(check=...))")
        return MiddlewareOptions(**given)
    if not isinstance(options, MiddlewareOptions):
        raise TypeError(f"options must be a MiddlewareOptions, not {type(options).__name__}")
    return replace(options, **given) if given else options
