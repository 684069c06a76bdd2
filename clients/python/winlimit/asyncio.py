"""The same client over `redis.asyncio.Redis` or `redis.asyncio.cluster.RedisCluster`."""

from __future__ import annotations

from typing import Any, List, Optional, Tuple, Union

import redis

from . import _commands
from ._commands import Pairs
from ._decision import Decision

__all__ = ["Limiter"]


class Limiter:
    """Awaitable twin of `winlimit.Limiter`."""

    def __init__(self, client: Any, name: str = "winlimit"):
        self.client = client
        self.name = name

    async def slide(self, key: str, window_ms: Union[int, Pairs], limit: Optional[int] = None, *,
                    cost: int = 1, bucket: Optional[int] = None, peek: bool = False) -> Decision:
        pairs = _commands.pairs_of(window_ms, limit)
        return await self._run(_commands.slide(key, pairs, cost, bucket, peek), pairs)

    async def fixed(self, key: str, window_ms: int, limit: int, *, cost: int = 1, align: bool = False,
                    peek: bool = False) -> Decision:
        return await self._run(_commands.fixed(key, window_ms, limit, cost, align, peek), [(window_ms, limit)])

    async def gcra(self, key: str, period_ms: int, limit: int, *, burst: Optional[int] = None, cost: int = 1,
                   peek: bool = False) -> Decision:
        capacity = limit if burst is None else burst
        return await self._run(_commands.gcra(key, period_ms, limit, burst, cost, peek), [(period_ms, capacity)])

    async def _run(self, args: list, policies: List[Tuple[int, int]]) -> Decision:
        try:
            reply = await self.client.execute_command(*args)
        except redis.ResponseError as e:
            raise _commands.translate(e) from e
        return Decision.from_reply(reply, policies, self.name)
