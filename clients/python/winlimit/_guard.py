"""What every middleware decides about a request once the limiter has answered (or failed),
shared by the ASGI and the WSGI middleware: no web framework here.

A verdict is one of: let the request through with these header fields, reject it with 429
and these fields, or answer 503 (Redis failed and the guard fails closed). Shadow mode turns
a rejection into letting through, counted and logged.
"""

from __future__ import annotations

import inspect
import logging
import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Dict, Optional

from . import _counting

from ._decision import Decision
from ._shadow import ShadowLog, quoted
from ._styles import DEFAULT_STYLE, check_style, fields

if TYPE_CHECKING:
    from .metrics import Metrics

log = logging.getLogger("winlimit")

DEFAULT_TIMEOUT = 1.0
"""Seconds the middleware waits for Redis before counting the check as failed."""


@dataclass(frozen=True)
class Verdict:
    """status: 200 (let through, with `headers` added), 429 or 503 (answer it so)."""

    status: int
    headers: Dict[str, str] = field(default_factory=dict)


PASS = Verdict(200)
UNAVAILABLE = Verdict(503)


class CheckTimedOut(TimeoutError):
    """No answer from Redis within the middleware's `timeout`."""

    def __init__(self, timeout: float):
        super().__init__(f"no answer from Redis within {timeout * 1000:g} ms")


def check_timeout(timeout: Optional[float]) -> Optional[float]:
    """`timeout` as given, once it is seconds above 0 (or None: wait as long as the client)."""
    if timeout is None:
        return None
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)):
        raise TypeError(f"timeout must be a number of seconds, not {type(timeout).__name__}")
    if not 0 < timeout < float("inf"):
        raise ValueError(f"timeout must be more than 0 seconds, not {timeout}")
    return float(timeout)


def takes_request(check: Callable[..., Any]) -> bool:
    """Whether `check` takes the request as a third argument: `check(limiter, key, request)`
    rather than `check(limiter, key)`, told apart by its signature."""
    try:
        parameters = inspect.signature(check).parameters.values()
    except (TypeError, ValueError):  # no signature to read: the two-argument form
        return False
    positional = [p for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return len(positional) >= 3 or any(p.kind is p.VAR_POSITIONAL for p in parameters)


class Guard:
    """The failure policy and shadow mode of one middleware or dependency."""

    def __init__(self, prefix: str, fail_open: bool, shadow: bool, timeout: Optional[float] = DEFAULT_TIMEOUT,
                 headers: Optional[str] = DEFAULT_STYLE, shadow_log: Optional[ShadowLog] = None,
                 metrics: Optional["Metrics"] = None):
        self.prefix = prefix
        self.fail_open = fail_open
        self.shadow = shadow
        self.timeout = check_timeout(timeout)
        self.style = check_style(headers)
        self.metrics = metrics
        self.shadow_rejections = 0
        self._shadow_log = shadow_log or ShadowLog()
        self._lock = threading.Lock()  # WSGI servers call from several threads

    def judged(self, key: str, decision: Decision, started: Optional[float] = None) -> Verdict:
        """The verdict on `decision`, counted in the metrics with the call's time from
        `started` (perf_counter)."""
        _counting.decided(self.metrics, decision, started, shadow=self.shadow and not decision.allowed)
        headers = fields(decision, self.style)
        if decision.allowed:
            return Verdict(200, headers)
        if not self.shadow:
            return Verdict(429, headers)
        headers.pop("Retry-After", None)
        with self._lock:
            self.shadow_rejections += 1
            warning = self._shadow_log.warning(key, decision, decision.headers()["RateLimit"])
        if warning is not None:
            log.warning("%s", warning)
        return Verdict(200, headers)

    def failed(self, key: str, error: BaseException, policy: str = "") -> Verdict:
        # Connection refused, no answer in time, OOM, a server without the module: the limiter
        # cannot decide. Logged without a traceback: an outage would print one per request.
        _counting.failed(self.metrics, policy)
        log.error("winlimit: rate limit check for %s failed, failing %s: %s: %s",
                  quoted(key), "open" if self.fail_open else "closed", error_name(error), error)
        return PASS if self.fail_open else UNAVAILABLE


def error_name(error: BaseException) -> str:
    """The error's class name; TimeoutError for the middleware's own timeout, as in Node."""
    return "TimeoutError" if isinstance(error, CheckTimedOut) else type(error).__name__
