"""What the limiters and the middleware tell `winlimit.metrics.Metrics`, when they have one;
duck-typed, so prometheus_client is needed only by whoever makes the Metrics."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Optional

from ._decision import Decision

if TYPE_CHECKING:
    from .metrics import Metrics


def decided(metrics: Optional["Metrics"], decision: Decision, started: Optional[float] = None,
            shadow: bool = False) -> Decision:
    """Counts `decision`, and its call's time from `started` (perf_counter) unless it came
    from the cache, by backend: "memory" for the fallback's, else "redis"; returns it."""
    if metrics is not None:
        if started is not None and not decision.cached:
            metrics.timed(time.perf_counter() - started, "memory" if decision.backend == "memory" else "redis")
        metrics.decided(decision, shadow)
    return decision


def failed(metrics: Optional["Metrics"], policy: str) -> None:
    if metrics is not None:
        metrics.failed(policy)
