"""The same client over redis.asyncio: `redis.asyncio.Redis` or
`redis.asyncio.cluster.RedisCluster`."""

from __future__ import annotations

import asyncio
import time
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Awaitable, Optional, Protocol, Union

import redis

from . import _backend, _commands, _counting, _wait
from ._cache import DEFAULT_SIZE, RejectionCache, forget, lookup, remember
from ._commands import Key, Pairs
from ._decision import Decision

if TYPE_CHECKING:
    from .metrics import Metrics

__all__ = ["AsyncClient", "Limiter"]


class AsyncClient(Protocol):
    """What the limiter needs of its client: `redis.asyncio.Redis` and
    `redis.asyncio.cluster.RedisCluster` both have it."""

    def execute_command(self, *args: Any, **options: Any) -> Awaitable[Any]: ...


class Limiter:
    """The awaitable twin of `winlimit.Limiter`: the same methods, arguments, backends and
    decisions."""

    def __init__(self, client: AsyncClient, name: str = _commands.DEFAULT_NAME, *,
                 cache_rejections: bool = False, cache_size: int = DEFAULT_SIZE, metrics: Optional["Metrics"] = None,
                 backend: str = "auto"):
        self.client = client
        self.name = _commands.check_name(name)
        self.backends = _backend.Chooser(backend)
        self.rejections: Optional[RejectionCache] = RejectionCache(cache_size) if cache_rejections else None
        self.metrics = metrics

    async def slide(self, key: Key, window_ms: Union[int, Pairs], limit: Optional[int] = None, *,
                    cost: int = 1, bucket: Optional[int] = None, peek: bool = False,
                    name: Optional[str] = None, wait: Optional[float] = None) -> Decision:
        """WINLIMIT.SLIDE (see `winlimit.Limiter.slide`)."""
        call = _commands.slide(key, window_ms, limit, cost=cost, bucket=bucket, peek=peek, name=self._name(name))
        return await self._run(call, _wait.check(wait, peek))

    async def fixed(self, key: Key, window_ms: int, limit: int, *, cost: int = 1, align: bool = False,
                    peek: bool = False, name: Optional[str] = None, wait: Optional[float] = None) -> Decision:
        """WINLIMIT.FIXED (see `winlimit.Limiter.fixed`)."""
        call = _commands.fixed(key, window_ms, limit, cost=cost, align=align, peek=peek, name=self._name(name))
        return await self._run(call, _wait.check(wait, peek))

    async def gcra(self, key: Key, period_ms: int, limit: int, *, burst: Optional[int] = None,
                   cost: int = 1, peek: bool = False, name: Optional[str] = None, wait: Optional[float] = None) -> Decision:
        """WINLIMIT.GCRA (see `winlimit.Limiter.gcra`)."""
        call = _commands.gcra(key, period_ms, limit, burst=burst, cost=cost, peek=peek, name=self._name(name))
        return await self._run(call, _wait.check(wait, peek))

    def _name(self, name: Optional[str]) -> str:
        return self.name if name is None else _commands.check_name(name)

    async def _run(self, call: _commands.Call, wait: Optional[float]) -> Decision:
        decision = await self._once(call)
        if wait is None:
            return decision
        waiting = _wait.Waiting(wait)
        while (seconds := waiting.next_sleep(decision)) is not None:
            started = time.monotonic()
            await asyncio.sleep(seconds)
            waiting.slept_for(started)
            decision = await self._once(call)
        return replace(decision, waited_ms=waiting.waited_ms())

    async def reset(self, key: Key) -> bool:
        """Deletes the key and forgets every cached rejection for it (see
        `winlimit.Limiter.reset`); True if a key was removed."""
        removed = await self.client.execute_command("DEL", key)
        forget(self.rejections, key)
        return bool(removed)

    async def _once(self, call: _commands.Call) -> Decision:
        cached = lookup(self.rejections, call)
        if cached is not None:
            return _counting.decided(self.metrics, cached)
        started = time.perf_counter()
        try:
            reply, backend = await self._answer(call)
        except (redis.RedisError, OSError):
            _counting.failed(self.metrics, call.policies[0].name)
            raise
        decision = remember(self.rejections, call, Decision.from_reply(reply, call.policies, backend))
        return _counting.decided(self.metrics, decision, started)

    async def _answer(self, call: _commands.Call) -> Any:
        initialize = getattr(self.client, "initialize", None)
        if initialize is not None:
            await initialize()  # a cluster knows its nodes only then; it does this once
        node = _backend.node_of(self.client, call.args[1])
        flow = self.backends.answer(call, self.backends.node(node.name if node else ""))
        return await _backend.drive_async(flow, lambda request: self.client.execute_command(
            *request.args, **({} if request.routed or node is None else {"target_nodes": node})))
