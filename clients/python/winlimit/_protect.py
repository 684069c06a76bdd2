"""What both Redis limiters do around a call to Redis: ask the node's breaker, time the call
out, and, when Redis is unavailable, let the fallback decide the same command line (or fail
at once without sending when the breaker is open and there is no fallback). Also the
breaker's log lines and metrics: a warning when it opens and an info line when it closes,
once per outage (no line per request while it is open)."""

from __future__ import annotations

import copy
import logging
import time
from typing import TYPE_CHECKING, Any, NoReturn, Optional, TypeVar

from . import _counting, memory
from ._breaker import CLOSED, OPEN, STATE_VALUES, Breaker, Breakers, Ticket
from ._commands import Call
from ._decision import Decision
from ._failures import BreakerOpen, counts, error_name
from ._options import check_timeout

if TYPE_CHECKING:
    from .metrics import Metrics

log = logging.getLogger("winlimit")
L = TypeVar("L")


def check_fallback(fallback: Any) -> Optional["memory.Limiter"]:
    if fallback is not None and not isinstance(fallback, memory.Limiter):
        raise TypeError(f"fallback must be a winlimit.memory.Limiter, not {type(fallback).__name__}")
    return fallback


def twin(limiter: L, timeout: Optional[float], fallback: Optional["memory.Limiter"]) -> L:
    """`limiter` with another call timeout and fallback, sharing everything else: its
    breakers, backends, cache and metrics (a middleware's own `timeout=` and `fallback=`)."""
    made = copy.copy(limiter)
    vars(made).update(timeout=check_timeout(timeout), fallback=check_fallback(fallback))
    return made


def refused(limiter: Any, call: Call, breaker: Breaker) -> Decision:
    """A call the open breaker does not send: the fallback's decision, or BreakerOpen."""
    if limiter.fallback is None:
        _counting.failed(limiter.metrics, call.policies[0].name)
        raise BreakerOpen(limiter.name, breaker.name, breaker.open_for_ms())
    return fall_back(limiter, call)


def fall_back(limiter: Any, call: Call) -> Decision:
    """The fallback's decision of the very command line, its COST, REFUND and BLOCK too."""
    started = time.perf_counter()
    decision: Decision = limiter.fallback._once(call)
    return _counting.decided(limiter.metrics, decision, started)


def failed(limiter: Any, call: Call, breaker: Breaker, ticket: Optional[Ticket], error: BaseException) -> Decision:
    """A call Redis failed: told to the breaker; the fallback decides when Redis is
    unavailable and there is one, else the error is raised again."""
    unavailable = counts(error)
    breaker.done(ticket, error if unavailable else None)
    if unavailable and limiter.fallback is not None:
        return fall_back(limiter, call)
    _counting.failed(limiter.metrics, call.policies[0].name)
    raise_again(error)


def raise_again(error: BaseException) -> NoReturn:
    raise error


def logged(breakers: Breakers) -> Breakers:
    """`breakers` with their transitions logged."""
    breakers.listen(_log_transition)
    return breakers


def _log_transition(breaker: Breaker, to: str, cause: str) -> None:
    where = f" for node {breaker.name}" if breaker.name else ""
    limiter = breaker.limiter
    if to == OPEN and cause == "failures":
        error = breaker.last_error
        log.warning("winlimit: Redis failed %d time%s in a row%s (%s: %s): the circuit breaker of limiter %r "
                    "opens; no call goes to Redis for %d ms, then one call tries it (decisions come from the "
                    "fallback where there is one, else fail at once)", breaker.options.failures,
                    "" if breaker.options.failures == 1 else "s", where,
                    error_name(error) if error else "", error, limiter, breaker.open_for_ms())
    elif to == CLOSED:
        log.info("winlimit: Redis answers again%s: the circuit breaker of limiter %r closes after %d ms; "
                 "deciding by Redis", where, limiter, breaker.outage_ms())


def watch(breakers: Breakers, metrics: Optional["Metrics"]) -> None:
    """Counts the transitions of `breakers` in `metrics` (once per metrics object)."""
    if metrics is None or any(seen is metrics for seen in breakers.metrics):
        return
    breakers.metrics.append(metrics)
    metrics.breaker_changed(breakers.limiter, STATE_VALUES[breakers.worst()])

    def count(breaker: Breaker, to: str, cause: str) -> None:
        metrics.breaker_changed(breakers.limiter, STATE_VALUES[breakers.worst()], to, cause)

    breakers.listen(count)
