"""The same client over redis.asyncio: `redis.asyncio.Redis` or
`redis.asyncio.cluster.RedisCluster`."""

from __future__ import annotations

from typing import Any, Awaitable, Optional, Protocol, Union

import redis

from . import _commands
from ._commands import Key, Pairs
from ._decision import Decision

__all__ = ["AsyncClient", "Limiter"]


class AsyncClient(Protocol):
    """What the limiter needs of its client: `redis.asyncio.Redis` and
    `redis.asyncio.cluster.RedisCluster` both have it."""

    def execute_command(self, *args: Any, **options: Any) -> Awaitable[Any]: ...


class Limiter:
    """The awaitable twin of `winlimit.Limiter`: the same methods, arguments and decisions."""

    def __init__(self, client: AsyncClient, name: str = _commands.DEFAULT_NAME):
        self.client = client
        self.name = _commands.check_name(name)

    async def slide(self, key: Key, window_ms: Union[int, Pairs], limit: Optional[int] = None, *,
                    cost: int = 1, bucket: Optional[int] = None, peek: bool = False,
                    name: Optional[str] = None) -> Decision:
        """WINLIMIT.SLIDE (see `winlimit.Limiter.slide`)."""
        return await self._run(_commands.slide(key, window_ms, limit, cost, bucket, peek, self._name(name)))

    async def fixed(self, key: Key, window_ms: int, limit: int, *, cost: int = 1, align: bool = False,
                    peek: bool = False, name: Optional[str] = None) -> Decision:
        """WINLIMIT.FIXED (see `winlimit.Limiter.fixed`)."""
        return await self._run(_commands.fixed(key, window_ms, limit, cost, align, peek, self._name(name)))

    async def gcra(self, key: Key, period_ms: int, limit: int, *, burst: Optional[int] = None,
                   cost: int = 1, peek: bool = False, name: Optional[str] = None) -> Decision:
        """WINLIMIT.GCRA (see `winlimit.Limiter.gcra`)."""
        return await self._run(_commands.gcra(key, period_ms, limit, burst, cost, peek, self._name(name)))

    def _name(self, name: Optional[str]) -> str:
        return self.name if name is None else _commands.check_name(name)

    async def _run(self, call: _commands.Call) -> Decision:
        try:
            reply = await self.client.execute_command(*call.args)
        except redis.ResponseError as e:
            raise _commands.translate(e) from e
        return Decision.from_reply(reply, call.policies)
