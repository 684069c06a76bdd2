"""Shadow mode's warnings: one per key per quiet period, not one per request. The rules are
the clients' shared ones (clients/spec/shadow.json)."""

from __future__ import annotations

import json
from collections import OrderedDict
from typing import Optional

from ._cache import Clock, monotonic_ms
from ._decision import Decision

SHADOW_LOG_KEYS = 10_000
"""How many keys the log remembers by default."""


class ShadowLog:
    """When each key was last warned about, so a flood over the limit is one line per period.
    Not thread-safe: the guard holds a lock around it."""

    def __init__(self, keys: int = SHADOW_LOG_KEYS, clock: Clock = monotonic_ms):
        self.keys = keys
        self._clock = clock
        # key -> the clock's time until which it is not warned about again; the first key is
        # the one warned about longest ago, forgotten first.
        self._quiet_until: "OrderedDict[str, float]" = OrderedDict()

    def warning(self, key: str, decision: Decision, rate_limit: Optional[str]) -> Optional[str]:
        """The warning for a rejection of `key` that shadow mode let through (`rate_limit`, the
        RateLimit field it was sent), or None while the key's quiet period lasts. The period is
        the rejection's retry_after_ms, or, when no retry can succeed (-1), its binding
        policy's window."""
        now = self._clock()
        until = self._quiet_until.get(key)
        if until is not None and now < until:
            return None
        self._quiet_until.pop(key, None)
        quiet_ms = decision.retry_after_ms if decision.retry_after_ms > 0 else (decision.window_ms or 0)
        self._quiet_until[key] = now + quiet_ms
        while len(self._quiet_until) > self.keys:
            self._quiet_until.popitem(last=False)
        return (f"winlimit: shadow mode let through a request over the limit for {quoted(key)}: "
                f"RateLimit: {rate_limit}, retry after {decision.retry_after_ms} ms")


def quoted(key: str) -> str:
    """A key as the log lines show it: a JSON string, as the Node client writes it."""
    return json.dumps(key, ensure_ascii=False)
