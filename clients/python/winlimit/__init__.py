"""winlimit: a Python client for the winlimit Redis module.

    import redis, winlimit
    limiter = winlimit.Limiter(redis.Redis())
    decision = limiter.slide("sms:+4915112345678", 3_600_000, 3)
    if not decision.allowed:
        ...  # decision.headers() has RateLimit-Policy, RateLimit and Retry-After
"""

from __future__ import annotations

from typing import List, Optional, Tuple, Union

import redis

from . import _commands
from ._commands import ModuleNotLoaded, Pairs
from ._decision import Decision

__all__ = ["Decision", "Limiter", "ModuleNotLoaded"]


class Limiter:
    """One method per command, over `redis.Redis` or `redis.cluster.RedisCluster` (the key is
    declared, so cluster clients route every call to its node)."""

    def __init__(self, client: "Union[redis.Redis, redis.cluster.RedisCluster]", name: str = "winlimit"):
        self.client = client
        self.name = name

    def slide(self, key: str, window_ms: Union[int, Pairs], limit: Optional[int] = None, *,
              cost: int = 1, bucket: Optional[int] = None, peek: bool = False) -> Decision:
        """WINLIMIT.SLIDE (or _RO with peek): one pair, or several as [(window_ms, limit), ...]."""
        pairs = _commands.pairs_of(window_ms, limit)
        return self._run(_commands.slide(key, pairs, cost, bucket, peek), pairs)

    def fixed(self, key: str, window_ms: int, limit: int, *, cost: int = 1, align: bool = False,
              peek: bool = False) -> Decision:
        """WINLIMIT.FIXED (or _RO with peek)."""
        return self._run(_commands.fixed(key, window_ms, limit, cost, align, peek), [(window_ms, limit)])

    def gcra(self, key: str, period_ms: int, limit: int, *, burst: Optional[int] = None, cost: int = 1,
             peek: bool = False) -> Decision:
        """WINLIMIT.GCRA (or _RO with peek); the decision's limit is the bucket's capacity."""
        capacity = limit if burst is None else burst
        return self._run(_commands.gcra(key, period_ms, limit, burst, cost, peek), [(period_ms, capacity)])

    def _run(self, args: list, policies: List[Tuple[int, int]]) -> Decision:
        try:
            reply = self.client.execute_command(*args)
        except redis.ResponseError as e:
            raise _commands.translate(e) from e
        return Decision.from_reply(reply, policies, self.name)
