"""What the `limits` storages (winlimit.limits) ask of winlimit, apart from the I/O: the key
names, the command for each of limits' calls, and how each decision answers limits.

limits' moving window is WINLIMIT.SLIDE (exact, atomic, on the server's clock); its fixed
window is WINLIMIT.FIXED with a limit no counter reaches, so every hit is counted, as limits'
own `incr` counts (its strategy compares the count with the limit afterwards).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Dict, Optional, Tuple
from urllib.parse import urlsplit, urlunsplit

from ._decision import Decision

# WINLIMIT.FIXED's largest limit: `incr` counts every hit below it.
COUNTER_LIMIT = 10**12
# The exact log's default `winlimit.max-limit`; above it a moving window counts per bucket.
DEFAULT_MAX_LIMIT = 10_000
# With BUCKET, a window holds at most this many buckets (docs/concepts/windows.md, "BUCKET ms").
BUCKETS_PER_WINDOW = 1000

SCHEMES = ["winlimit+redis", "winlimit+rediss", "winlimit+redis+cluster"]
ASYNC_SCHEMES = [f"async+{scheme}" for scheme in SCHEMES]


@dataclass(frozen=True)
class Target:
    """Where a storage URI points: a redis-py URL, and whether it names a cluster."""

    url: str
    cluster: bool


def parse_uri(uri: str) -> Target:
    """`[async+]winlimit+redis[s][+cluster]://...` as the redis-py URL it wraps."""
    parts = urlsplit(uri)
    scheme = parts.scheme.removeprefix("async+")
    if scheme not in SCHEMES:
        raise ValueError(f"winlimit's limits storage takes {', '.join(SCHEMES)} URIs, not {parts.scheme}://")
    cluster = scheme.endswith("+cluster")
    plain = "redis" if cluster else scheme.removeprefix("winlimit+")
    return Target(urlunsplit((plain, *parts[1:])), cluster)


def first_node(url: str) -> str:
    """A cluster URI may list several nodes (`host:port,host:port`); redis-py's cluster
    client starts from one and discovers the rest."""
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc.split(",")[0], *parts[2:]))


@dataclass(frozen=True)
class Plan:
    """The key names and command arguments of one storage."""

    prefix: str
    max_limit: int

    def moving_key(self, key: str) -> str:
        return f"{self.prefix}:moving:{key}"

    def counter_key(self, key: str) -> str:
        return f"{self.prefix}:fixed:{key}"

    def slide(self, key: str, limit: int, expiry: int) -> Tuple[Tuple[Any, ...], Dict[str, Any]]:
        """The `slide` call of a moving window of `limit` per `expiry` seconds: the exact
        log, or per bucket above max_limit (BUCKET never admits more than the exact log)."""
        window_ms = expiry * 1000
        options: Dict[str, Any] = {}
        if limit > self.max_limit:
            options["bucket"] = -(-window_ms // BUCKETS_PER_WINDOW)
        return (self.moving_key(key), window_ms, limit), options

    def counter(self, key: str, expiry: int) -> Tuple[str, int, int]:
        return self.counter_key(key), expiry * 1000, COUNTER_LIMIT


def counted(decision: Decision) -> int:
    """Units counted now, from a decision (a peek's remaining is limit minus counted)."""
    return decision.limit - decision.remaining


def second_peek_cost(limit: int, first: Decision) -> Optional[int]:
    """The cost of the peek that tells when the oldest counted unit leaves: one more than the
    room left, so it waits for exactly one unit. None when the first peek tells already (the
    window is full) or nothing counts."""
    in_window = counted(first)
    if in_window == 0 or not first.allowed:
        return None
    return limit - in_window + 1


def moving_window(expiry: int, first: Decision, second: Optional[Decision]) -> Tuple[float, int]:
    """limits' (start, count): the oldest counted unit's time (the window resets at start +
    expiry), from the wait the server gave for that unit to leave; now when nothing counts."""
    now = time.time()
    in_window = counted(first)
    if in_window == 0:
        return now, 0
    leaves = (second or first).retry_after_ms
    return now + leaves / 1000 - expiry, in_window


SLIDING_WINDOW_COUNTER_REFUSED = (
    "winlimit's limits storage offers the moving window (exact, and what this strategy "
    "approximates) and the fixed window, not the sliding window counter: use "
    "strategy='moving-window'")
