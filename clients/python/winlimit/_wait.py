"""`wait=`: sleeping until a call is accepted, shared by the sync and asyncio limiters.

winlimit's `retry_after_ms` is exact: a retry then succeeds if nothing else took the room
first. So waiting sleeps exactly that long and calls again, instead of polling.
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Callable, Optional

from ._decision import Decision


def check(wait: Optional[float], peek: bool, refund: Optional[int] = None) -> Optional[float]:
    """`wait` as given, once it is a usable number of seconds (or None, never waiting)."""
    if wait is None:
        return None
    if isinstance(wait, bool) or not isinstance(wait, (int, float)):
        raise TypeError(f"wait must be a number of seconds, not {type(wait).__name__}")
    if not wait > 0:
        raise ValueError("wait must be more than 0 seconds")
    if peek:
        raise ValueError("peek=True records nothing, so there is nothing to wait for: drop wait= or peek=")
    if refund is not None:
        raise ValueError("refund= takes nothing, so there is nothing to wait for: drop wait= or refund=")
    return float(wait)


def run(once: Callable[[], Decision], wait: Optional[float]) -> Decision:
    """`once()`; with `wait`, slept on and called again while rejected (see `Waiting`), the
    time slept in `waited_ms`. The sync limiters' loop; the asyncio one awaits its sleeps."""
    decision = once()
    if wait is None:
        return decision
    waiting = Waiting(wait)
    while (seconds := waiting.next_sleep(decision)) is not None:
        started = time.monotonic()
        time.sleep(seconds)
        waiting.slept_for(started)
        decision = once()
    return replace(decision, waited_ms=waiting.waited_ms())


class Waiting:
    """One call's wait: its deadline, from the start of the call, and the time slept."""

    def __init__(self, wait: float):
        self.deadline = time.monotonic() + wait
        self.slept = 0.0

    def next_sleep(self, decision: Decision) -> Optional[float]:
        """Seconds to sleep before calling again, or None to return `decision`: it was
        accepted, no retry can succeed (-1), or the sleep would end after the deadline."""
        if decision.allowed or decision.retry_after_ms <= 0:
            return None
        seconds = decision.retry_after_ms / 1000
        return seconds if time.monotonic() + seconds <= self.deadline else None

    def slept_for(self, started: float) -> None:
        self.slept += time.monotonic() - started

    def waited_ms(self) -> int:
        return round(self.slept * 1000)
