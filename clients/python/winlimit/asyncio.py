"""The same client over redis.asyncio: `redis.asyncio.Redis` or
`redis.asyncio.cluster.RedisCluster`."""

from __future__ import annotations

import asyncio
import time
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Awaitable, Optional, Protocol

import redis

from . import _backend, _commands, _counting, _protect, _wait
from ._breaker import DEFAULT_FAILURES, DEFAULT_OPEN_MS, REFUSE, BreakerOptions, Breakers
from ._cache import DEFAULT_SIZE, RejectionCache, forget, lookup, remember
from ._commands import Key
from ._decision import Decision
from ._failures import CallTimedOut
from ._methods import CommandMethods
from ._options import DEFAULT_TIMEOUT, check_timeout

if TYPE_CHECKING:
    from . import memory
    from .metrics import Metrics

__all__ = ["AsyncClient", "Limiter"]


class AsyncClient(Protocol):
    """What the limiter needs of its client: `redis.asyncio.Redis` and
    `redis.asyncio.cluster.RedisCluster` both have it."""

    def execute_command(self, *args: Any, **options: Any) -> Awaitable[Any]: ...


class Limiter(CommandMethods[Awaitable[Decision]]):
    """The awaitable twin of `winlimit.Limiter`: the same methods, arguments, backends,
    breaker and decisions. `timeout` (seconds, default 1.0; None: as long as the client)
    bounds each call, which then counts as failed for the breaker."""

    def __init__(self, client: AsyncClient, name: str = _commands.DEFAULT_NAME, *,
                 cache_rejections: bool = False, cache_size: int = DEFAULT_SIZE, metrics: Optional["Metrics"] = None,
                 backend: str = "auto", block_ms: Optional[int] = None, fallback: Optional["memory.Limiter"] = None,
                 timeout: Optional[float] = DEFAULT_TIMEOUT, breaker: bool = True, failures: int = DEFAULT_FAILURES,
                 open_ms: int = DEFAULT_OPEN_MS, max_open_ms: Optional[int] = None):
        self.client = client
        self.name = _commands.check_name(name)
        self.block_ms = _commands.check_block(block_ms)
        self.backends = _backend.Chooser(backend)
        self.rejections: Optional[RejectionCache] = RejectionCache(cache_size) if cache_rejections else None
        self.metrics = metrics
        self.fallback = _protect.check_fallback(fallback)
        self.timeout = check_timeout(timeout)
        self.breakers = _protect.logged(Breakers(BreakerOptions(breaker, failures, open_ms, max_open_ms), self.name))
        _protect.watch(self.breakers, metrics)

    def _run(self, call: _commands.Call, wait: Optional[float]) -> Awaitable[Decision]:
        return self._waited(call, wait)

    async def _waited(self, call: _commands.Call, wait: Optional[float]) -> Decision:
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
        try:
            node = await self._node(call)
        except (redis.RedisError, OSError) as e:  # a cluster that cannot tell its nodes
            return _protect.failed(self, call, self.breakers.of(""), None, e)
        breaker = self.breakers.of(node.name if node else "")
        action, ticket = breaker.admit()
        if action == REFUSE:
            return _protect.refused(self, call, breaker)
        started = time.perf_counter()
        try:
            reply, backend = await self._within_time(self._answer(call, node))
        except (redis.RedisError, OSError) as e:
            return _protect.failed(self, call, breaker, ticket, e)
        except BaseException:  # cancelled: the call's end is unknown
            breaker.abandon(ticket)
            raise
        breaker.done(ticket)
        decision = remember(self.rejections, call, Decision.from_reply(reply, call.policies, backend))
        return _counting.decided(self.metrics, decision, started)

    async def _node(self, call: _commands.Call) -> Any:
        initialize = getattr(self.client, "initialize", None)
        if initialize is not None:
            await initialize()  # a cluster knows its nodes only then; it does this once
        return _backend.node_of(self.client, call.args[1])

    async def _within_time(self, work: Awaitable[Any]) -> Any:
        if self.timeout is None:
            return await work
        try:
            return await asyncio.wait_for(work, self.timeout)
        except asyncio.TimeoutError:
            raise CallTimedOut(self.timeout) from None

    async def _answer(self, call: _commands.Call, node: Any) -> Any:
        flow = self.backends.answer(call, self.backends.node(node.name if node else ""))
        return await _backend.drive_async(flow, lambda request: self.client.execute_command(
            *request.args, **({} if request.routed or node is None else {"target_nodes": node})))
