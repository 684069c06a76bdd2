"""What a middleware answers once the limiter has decided (or failed), shared by the ASGI and
the WSGI middleware: no web framework here.

A verdict is one of: let the request through with these header fields, reject it with 429
and these fields, or answer 503 (Redis failed and the middleware fails closed). Shadow mode
turns a rejection into letting through, counted and logged.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field
from typing import Dict, Optional

from . import _counting
from ._decision import Decision
from ._failures import BreakerOpen, error_name
from ._options import MiddlewareOptions
from ._shadow import ShadowLog, quoted
from ._styles import fields

log = logging.getLogger("winlimit")


@dataclass(frozen=True)
class Verdict:
    """status: 200 (let through, with `headers` added), 429 or 503 (answer it so)."""

    status: int
    headers: Dict[str, str] = field(default_factory=dict)


PASS = Verdict(200)
UNAVAILABLE = Verdict(503)


class Judge:
    """The failure policy, header style and shadow mode of one middleware or dependency."""

    def __init__(self, options: MiddlewareOptions, shadow_log: Optional[ShadowLog] = None):
        self.options = options
        self.style = options.headers
        self.shadow_rejections = 0
        self._shadow_log = shadow_log or ShadowLog()
        self._lock = threading.Lock()  # WSGI servers call from several threads

    def judged(self, key: str, decision: Decision, started: Optional[float] = None) -> Verdict:
        """The verdict on `decision`, counted in the metrics with the call's time from
        `started` (perf_counter)."""
        shadow = self.options.shadow
        _counting.decided(self.options.metrics, decision, started, shadow=shadow and not decision.allowed)
        headers = fields(decision, self.style)
        if decision.allowed:
            return Verdict(200, headers)
        if not shadow:
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
        # cannot decide. Logged without a traceback: an outage would print one per request;
        # not at all while the breaker is open (it logged the outage once).
        _counting.failed(self.options.metrics, policy)
        fail_open = self.options.fail_open
        if not isinstance(error, BreakerOpen):
            log.error("winlimit: rate limit check for %s failed, failing %s: %s: %s",
                      quoted(key), "open" if fail_open else "closed", error_name(error), error)
        return PASS if fail_open else UNAVAILABLE
