"""A middleware's `count=` and `block_ms=`, shared by the ASGI and the WSGI middleware and the
FastAPI dependency: no web framework here.

The request is counted before the handler runs, as always (so concurrent requests cannot
all slip through); once the response is known, its units are given back (REFUND) when the
request does not count: a success under `count="failures"`, a failure under
`count="successes"`. A handler that raises is a failure.
"""

from __future__ import annotations

import inspect
import logging
from typing import Any, Callable, Dict, List, Optional, Tuple

from ._commands import COMMANDS

log = logging.getLogger("winlimit")

COUNTS = ("all", "failures", "successes")
# Every method records unless it peeks.
RECORDING = tuple(spec.method for spec in COMMANDS.values())
# What a refund repeats of the call it undoes: the same limit and shape, not its cost, block
# or wait (REFUND takes the cost's place; BLOCK with it is refused).
KEPT = tuple(sorted({option for spec in COMMANDS.values() for option in spec.shape} | {"name"}))

IsFailure = Callable[[int], bool]
"""`is_failure(status)`: whether a response of this status is a failure."""


def status_failed(status: int) -> bool:
    """The default: a status of 400 or more is a failure, as express-rate-limit has it."""
    return status >= 400


class Counting:
    """Which requests use up the limit, and the block every call of the check asks for."""

    def __init__(self, count: str = "all", is_failure: Optional[IsFailure] = None, block_ms: Optional[int] = None):
        if count not in COUNTS:
            raise ValueError(f"count must be one of {', '.join(COUNTS)}, not {count!r}")
        if is_failure is not None and not callable(is_failure):
            raise TypeError("is_failure must be a callable taking the response's status")
        if block_ms is not None and (isinstance(block_ms, bool) or not isinstance(block_ms, int)):
            raise TypeError(f"block_ms must be an int, not {type(block_ms).__name__}")
        self.count = count
        self.is_failure = is_failure or status_failed
        self.block_ms = block_ms

    def recorder(self, limiter: Any) -> Any:
        """The limiter as the check sees it: itself when nothing is to be refunded or added."""
        if self.count == "all" and self.block_ms is None:
            return limiter
        return Recorder(limiter, self.block_ms)

    def refunds(self, status: Optional[int]) -> bool:
        """Whether a request that ended with `status` (None: the handler raised) gives its
        units back."""
        if self.count == "all":
            return False
        failed = status is None or self.is_failure(status)
        return failed if self.count == "successes" else not failed

    def due(self, decision: Any, limiter: Any, status: Optional[int]) -> List[Callable[[], Any]]:
        """The refunds a request owes once it ended with `status`: none unless its check
        accepted it (a rejection recorded nothing) and it does not count."""
        return limiter.refunds() if self.may_refund(decision, limiter) and self.refunds(status) else []

    def may_refund(self, decision: Any, limiter: Any) -> bool:
        """Whether some outcome of the request refunds it: its check accepted it (a rejection
        recorded nothing) through a Recorder."""
        return decision is not None and decision.allowed and isinstance(limiter, Recorder)


class Recorder:
    """A limiter whose recording calls are passed on (with the middleware's `block_ms` when
    a call gives none) and remembered, so that their units can be given back."""

    def __init__(self, limiter: Any, block_ms: Optional[int]):
        self._limiter = limiter
        self._block_ms = block_ms
        self.calls: List[_Recorded] = []

    def __getattr__(self, name: str) -> Any:
        method = getattr(self._limiter, name)
        if name not in RECORDING:
            return method

        def recorded(*args: Any, **kw: Any) -> Any:
            if kw.get("peek") or kw.get("refund") is not None:
                return method(*args, **kw)
            if self._block_ms is not None:
                kw.setdefault("block_ms", self._block_ms)
            call = _Recorded(name, args, kw)
            self.calls.append(call)
            return call.noting(method(*args, **kw))

        return recorded

    def refunds(self) -> List[Callable[[], Any]]:
        """One call per recorded call, giving its units back where they were counted: the
        limiter's fallback for a decision it made, else the limiter (each returns what the
        limiter does: a Decision, or an awaitable of one)."""
        made = []
        fallback = getattr(self._limiter, "fallback", None)
        for call in self.calls:
            cost = call.kw.get("cost", 1)
            if isinstance(cost, int) and cost > 0:
                kept = {k: v for k, v in call.kw.items() if k in KEPT}
                where = fallback if call.backend == "memory" and fallback is not None else self._limiter
                made.append(_refund(getattr(where, call.name), call.args, kept, cost))
        return made


class _Recorded:
    """A recording call, and the backend its decision came from once known."""

    def __init__(self, name: str, args: Tuple[Any, ...], kw: Dict[str, Any]):
        self.name, self.args, self.kw = name, args, kw
        self.backend: Optional[str] = None

    def noting(self, decided: Any) -> Any:
        if not inspect.isawaitable(decided):
            self.backend = getattr(decided, "backend", None)
            return decided

        async def awaited() -> Any:
            decision = await decided
            self.backend = getattr(decision, "backend", None)
            return decision

        return awaited()


def _refund(method: Callable[..., Any], args: Tuple[Any, ...], kept: Dict[str, Any], cost: int) -> Callable[[], Any]:
    return lambda: method(*args, refund=cost, **kept)


def refund_failed(error: BaseException) -> None:
    # The response is already decided: a refund that fails leaves the units counted, logged.
    log.error("winlimit: refunding a request that does not count failed: %s: %s", type(error).__name__, error)
