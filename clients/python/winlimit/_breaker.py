"""The circuit breaker a limiter keeps per Redis server (per cluster node): after `failures`
consecutive failures it opens and no call is sent for `open_ms`; then one probe goes to
Redis, and its answer closes the breaker or opens it again for twice as long, up to
`max_open_ms`. The rules, shared by every client, are in clients/spec/breaker.json.

Pure state on a clock: the limiters ask `admit` before sending, and report the outcome with
`done`. A lock makes `admit` and `done` atomic, so exactly one probe goes out whatever the
concurrency (threads, or tasks of one event loop, which never wait inside it).
"""

from __future__ import annotations

import threading
import time
from typing import Any, Callable, Dict, List, Optional

CLOSED, HALF_OPEN, OPEN = "closed", "half_open", "open"
STATE_VALUES = {CLOSED: 0, HALF_OPEN: 1, OPEN: 2}  # winlimit_breaker_state's values

SEND, PROBE, REFUSE = "send", "probe", "refuse"  # REFUSE: answered as open, not sent

DEFAULT_FAILURES = 3
DEFAULT_OPEN_MS = 1000
DEFAULT_MAX_OPEN_MS = 30000

# (breaker, to, cause): called after the change, outside the lock.
Listener = Callable[["Breaker", str, str], None]


def monotonic_ms() -> float:
    return time.monotonic() * 1000.0


def _positive_int(name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int >= 1, not {value!r}")
    if value < 1:
        raise ValueError(f"{name} must be an int >= 1, not {value!r}")
    return value


class BreakerOptions:
    """The breaker options of a limiter, checked once."""

    def __init__(self, breaker: Any = True, failures: Any = DEFAULT_FAILURES,
                 open_ms: Any = DEFAULT_OPEN_MS, max_open_ms: Any = None) -> None:
        if not isinstance(breaker, bool):
            raise TypeError(f"breaker must be True or False, not {breaker!r}")
        self.enabled = breaker
        self.failures = _positive_int("failures", failures)
        self.open_ms = _positive_int("open_ms", open_ms)
        # Unset, the cap is the default or open_ms if that is longer: an open_ms alone is kept.
        self.max_open_ms = max(DEFAULT_MAX_OPEN_MS, self.open_ms) if max_open_ms is None \
            else _positive_int("max_open_ms", max_open_ms)
        if self.max_open_ms < self.open_ms:
            raise ValueError(f"max_open_ms ({max_open_ms}) must be at least open_ms ({open_ms})")


class Ticket:
    """One admitted call: whether it is the probe."""

    __slots__ = ("probe",)

    def __init__(self, probe: bool) -> None:
        self.probe = probe


class Breaker:
    """One server's breaker. `clock` gives ms; `listeners` hear every transition."""

    def __init__(self, options: BreakerOptions, name: str = "",
                 clock: Callable[[], float] = monotonic_ms) -> None:
        self.options = options
        self.name = name
        self.limiter = ""  # the limiter's name, for the log lines
        self._clock = clock
        self._lock = threading.Lock()
        self.state = CLOSED
        self._count = 0  # consecutive counted failures while closed
        self._period_ms = 0  # the last open period; 0 while closed
        self.open_until_ms = 0.0
        self.opened_at_ms = 0.0  # when the outage began (the first opening)
        self.last_error: Optional[BaseException] = None
        self.listeners: List[Listener] = []

    def admit(self) -> tuple[str, Optional[Ticket]]:
        """What to do with a call arriving now: SEND or PROBE it (with the ticket to give
        `done`), or REFUSE it (answer it as open)."""
        if not self.options.enabled:
            return SEND, _SENT
        with self._lock:
            if self.state == CLOSED:
                return SEND, _SENT
            if self.state == HALF_OPEN or self._clock() < self.open_until_ms:
                return REFUSE, None
            self.state = HALF_OPEN
        self._tell(HALF_OPEN, "open_elapsed")
        return PROBE, Ticket(True)

    def done(self, ticket: Optional[Ticket], error: Optional[BaseException] = None) -> None:
        """The end of an admitted call: `error` when it failed in a way that counts
        (`_failures.counts`), else None (an answer, or an error that is the caller's)."""
        if ticket is None or not self.options.enabled:
            return
        if error is not None:
            self.last_error = error
        change = self._settle(ticket, error is not None)
        if change is not None:
            self._tell(*change)

    def abandon(self, ticket: Optional[Ticket]) -> None:
        """An admitted call cancelled before its end: nothing is learnt. A probe's place goes
        to the next call (the open period has passed)."""
        if ticket is not None and ticket.probe:
            with self._lock:
                if self.state == HALF_OPEN:
                    self.state = OPEN

    def _settle(self, ticket: Ticket, failed: bool) -> Optional[tuple[str, str]]:
        with self._lock:
            if ticket.probe and self.state == HALF_OPEN:
                if failed:
                    period = min(self._period_ms * 2, self.options.max_open_ms)
                    return self._open(period, "probe_failed")
                self.state, self._count, self._period_ms = CLOSED, 0, 0
                return CLOSED, "probe_succeeded"
            if self.state != CLOSED:
                return None  # sent before the breaker opened: changes nothing now
            if not failed:
                self._count = 0
                return None
            self._count += 1
            if self._count < self.options.failures:
                return None
            return self._open(self.options.open_ms, "failures")

    def _open(self, period_ms: int, cause: str) -> tuple[str, str]:
        if cause == "failures":
            self.opened_at_ms = self._clock()
        self.state, self._count, self._period_ms = OPEN, 0, period_ms
        self.open_until_ms = self._clock() + period_ms
        return OPEN, cause

    def outage_ms(self) -> float:
        """How long ago the breaker first opened (for the line logged when it closes)."""
        return max(0.0, self._clock() - self.opened_at_ms)

    def open_for_ms(self) -> float:
        """How long the breaker stays open from now (0 when it is not open)."""
        with self._lock:
            if self.state != OPEN:
                return 0.0
            return max(0.0, self.open_until_ms - self._clock())

    def _tell(self, to: str, cause: str) -> None:
        for listener in list(self.listeners):
            listener(self, to, cause)


_SENT = Ticket(False)


class Breakers:
    """A limiter's breakers, one per server (per cluster node, by its name; "" for a plain
    client), sharing the options and the listeners. A limiter's twins share them."""

    def __init__(self, options: BreakerOptions, limiter: str, clock: Callable[[], float] = monotonic_ms) -> None:
        self.options = options
        self.limiter = limiter
        self._clock = clock
        self._lock = threading.Lock()
        self._by_node: Dict[str, Breaker] = {}
        self.listeners: List[Listener] = []
        self.metrics: List[Any] = []  # the Metrics objects counting the transitions

    def of(self, node: str) -> Breaker:
        breaker = self._by_node.get(node)
        if breaker is None:
            with self._lock:
                breaker = self._by_node.get(node)
                if breaker is None:
                    breaker = Breaker(self.options, node, self._clock)
                    breaker.limiter = self.limiter
                    breaker.listeners.append(self._tell)
                    self._by_node[node] = breaker
        return breaker

    def worst(self) -> str:
        """The state of the breaker furthest from closed (winlimit_breaker_state)."""
        states = [b.state for b in list(self._by_node.values())] or [CLOSED]
        return max(states, key=STATE_VALUES.__getitem__)

    def listen(self, listener: Listener) -> None:
        """Adds `listener` once (a middleware adds its metrics on every limiter it is given)."""
        with self._lock:
            if listener not in self.listeners:
                self.listeners.append(listener)

    def _tell(self, breaker: Breaker, to: str, cause: str) -> None:
        for listener in list(self.listeners):
            listener(breaker, to, cause)
