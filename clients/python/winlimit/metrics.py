"""Prometheus metrics per policy (the `metrics` extra: prometheus_client).

    metrics = winlimit.metrics.Metrics()            # on prometheus_client's default registry
    limiter = winlimit.Limiter(redis.Redis(), metrics=metrics)
    # or: RateLimitMiddleware(app, limiter, check, metrics=metrics)

- `winlimit_decisions_total{policy, outcome}`: outcome is `allowed`, `rejected`,
  `shadow_rejected`, `cached` (a rejection answered from the limiter's cache), `fallback` or
  `error` (Redis failed: no decision);
- `winlimit_call_seconds{backend}`: the time of each decision, `backend="redis"` for a call
  to Redis, `"memory"` for one the fallback made;
- `winlimit_decisions_by_source_total{policy, source}`: each decision by who made it,
  `redis` or `memory` (the fallback);
- `winlimit_breaker_state{limiter}`: the limiter's circuit breaker, 0 closed, 1 half-open, 2
  open (of a cluster's several breakers, the one furthest from closed);
- `winlimit_breaker_transitions_total{limiter, to, cause}`: its changes of state, `cause`
  one of `failures`, `open_elapsed`, `probe_failed`, `probe_succeeded`;
- `winlimit_lowest_remaining{policy}`: the lowest `remaining` seen since the last scrape,
  which shows a limit coming near.

Labels are bounded: `policy` is the binding policy's name, never a key. Pass the metrics to the
limiter or to the middleware, not both, or each request is counted twice: the limiter counts
every call, the middleware every request it limits (and `shadow_rejected`).
"""

from __future__ import annotations

import threading
from typing import Dict, Iterable, Optional

from prometheus_client import REGISTRY, CollectorRegistry, Counter, Gauge, Histogram
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from ._decision import Decision

__all__ = ["Metrics"]

OUTCOMES = ("allowed", "rejected", "shadow_rejected", "cached", "fallback", "error")


class _LowestRemaining(Collector):
    """The lowest `remaining` per policy since the last scrape: a gauge that forgets on read."""

    def __init__(self) -> None:
        self._lowest: Dict[str, int] = {}
        self._lock = threading.Lock()

    def seen(self, policy: str, remaining: int) -> None:
        with self._lock:
            if remaining < self._lowest.get(policy, remaining + 1):
                self._lowest[policy] = remaining

    def collect(self) -> Iterable[Metric]:
        with self._lock:
            lowest, self._lowest = self._lowest, {}
        gauge = GaugeMetricFamily("winlimit_lowest_remaining",
                                  "The lowest remaining seen per policy since the last scrape", labels=["policy"])
        for policy, remaining in sorted(lowest.items()):
            gauge.add_metric([policy], remaining)
        yield gauge

    def describe(self) -> Iterable[Metric]:
        yield GaugeMetricFamily("winlimit_lowest_remaining",
                                "The lowest remaining seen per policy since the last scrape", labels=["policy"])


class Metrics:
    """winlimit's metrics on `registry` (prometheus_client's default registry if None)."""

    def __init__(self, registry: Optional[CollectorRegistry] = None):
        registry = REGISTRY if registry is None else registry
        self.decisions = Counter("winlimit_decisions", "Rate-limit decisions by policy and outcome",
                                 ["policy", "outcome"], registry=registry)
        self.call_seconds = Histogram("winlimit_call_seconds", "The time of each call to the backend", ["backend"],
                                      registry=registry)
        self.by_source = Counter("winlimit_decisions_by_source", "Rate-limit decisions by policy and source",
                                 ["policy", "source"], registry=registry)
        self.breaker_state = Gauge("winlimit_breaker_state", "The circuit breaker: 0 closed, 1 half-open, 2 open",
                                   ["limiter"], registry=registry)
        self.breaker_transitions = Counter("winlimit_breaker_transitions", "The circuit breaker's changes of state",
                                           ["limiter", "to", "cause"], registry=registry)
        self.lowest_remaining = _LowestRemaining()
        registry.register(self.lowest_remaining)

    def decided(self, decision: Decision, shadow: bool = False) -> None:
        """Counts a decision; `shadow`: a rejection shadow mode let through."""
        policy = decision.policy
        name = policy.name if policy is not None else ""
        if decision.backend == "memory":
            outcome = "fallback"  # decided in this process while Redis failed
        elif decision.allowed:
            outcome = "allowed"
        elif shadow:
            outcome = "shadow_rejected"
        else:
            outcome = "cached" if decision.cached else "rejected"
        self.decisions.labels(name, outcome).inc()
        self.by_source.labels(name, "memory" if decision.backend == "memory" else "redis").inc()
        self.lowest_remaining.seen(name, decision.remaining)

    def failed(self, policy: str) -> None:
        """Counts a call that got no decision: Redis failed or gave no answer in time."""
        self.decisions.labels(policy, "error").inc()

    def timed(self, seconds: float, backend: str = "redis") -> None:
        self.call_seconds.labels(backend).observe(seconds)

    def breaker_changed(self, limiter: str, state: int, to: Optional[str] = None, cause: Optional[str] = None) -> None:
        """The breaker of `limiter` is now in `state` (0, 1, 2), after a change `to` for `cause`."""
        self.breaker_state.labels(limiter).set(state)
        if to is not None and cause is not None:
            self.breaker_transitions.labels(limiter, to, cause).inc()
