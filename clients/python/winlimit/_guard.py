"""What every middleware decides about a request once the limiter has answered (or failed),
shared by the ASGI and the WSGI middleware: no web framework here.

A verdict is one of: let the request through with these header fields, reject it with 429
and these fields, or answer 503 (Redis failed and the guard fails closed). Shadow mode turns
a rejection into letting through, counted and logged.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass, field
from typing import Dict

from ._decision import Decision

log = logging.getLogger("winlimit")


@dataclass(frozen=True)
class Verdict:
    """status: 200 (let through, with `headers` added), 429 or 503 (answer it so)."""

    status: int
    headers: Dict[str, str] = field(default_factory=dict)


PASS = Verdict(200)
UNAVAILABLE = Verdict(503)


class Guard:
    """The failure policy and shadow mode of one middleware or dependency."""

    def __init__(self, prefix: str, fail_open: bool, shadow: bool):
        self.prefix = prefix
        self.fail_open = fail_open
        self.shadow = shadow
        self.shadow_rejections = 0
        # Shadow warnings: key -> monotonic time until which it is not logged again.
        self._quiet_until: Dict[str, float] = {}
        self._lock = threading.Lock()  # WSGI servers call from several threads

    def judged(self, key: str, decision: Decision) -> Verdict:
        headers = decision.headers()
        if decision.allowed:
            return Verdict(200, headers)
        if not self.shadow:
            return Verdict(429, headers)
        headers.pop("Retry-After", None)
        self._shadow_rejected(key, decision)
        return Verdict(200, headers)

    def failed(self, key: str, error: BaseException) -> Verdict:
        # Connection refused, timeouts, OOM, a server without the module: the limiter cannot
        # decide. Logged without a traceback: an outage would print one per request.
        log.error("winlimit: rate limit check for %r failed, failing %s: %s: %s",
                  key, "open" if self.fail_open else "closed", type(error).__name__, error)
        return PASS if self.fail_open else UNAVAILABLE

    def _shadow_rejected(self, key: str, decision: Decision) -> None:
        """Counts a rejection let through, and warns once per key per `retry_after_ms` (per
        policy window when no retry can succeed)."""
        now = time.monotonic()
        quiet_ms = decision.retry_after_ms if decision.retry_after_ms > 0 else (decision.window_ms or 1000)
        with self._lock:
            self.shadow_rejections += 1
            if self._quiet_until.get(key, 0.0) > now:
                return
            self._quiet_until = {k: t for k, t in self._quiet_until.items() if t > now}
            self._quiet_until[key] = now + quiet_ms / 1000
        log.warning("winlimit: shadow mode let %r through over its limit (%d of %d left, retry after %d ms)",
                    key, decision.remaining, decision.limit, decision.retry_after_ms)

