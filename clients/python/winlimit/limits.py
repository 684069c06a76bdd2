"""winlimit as a storage of the `limits` library, so Flask-Limiter and slowapi use it by URI.

    import winlimit.limits  # registers the schemes below
    Limiter(app, key_func=get_remote_address, storage_uri="winlimit+redis://localhost:6379",
            strategy="moving-window")

Schemes: `winlimit+redis://`, `winlimit+rediss://`, `winlimit+redis+cluster://` (each also
with `async+` in front, for `limits.aio`). The moving window is one WINLIMIT.SLIDE per hit
(exact, atomic, on the server's clock); above `max_limit` (the exact log's default
`winlimit.max-limit`, 10,000) it counts per bucket of 1/1000 of the window, which never
admits more than the exact log would. The fixed window is WINLIMIT.FIXED counting every hit,
as limits' own counters do. The sliding window counter is an approximation of the moving
window, and is refused with an error that says so.

Each storage decides through a `winlimit.Limiter` (`winlimit.asyncio.Limiter` for
`limits.aio`), so it chooses the backend (the module, the Functions library, the scripts)
as every winlimit client does. Keyword options go to redis-py's client, except
`key_prefix` (default "LIMITS"), `max_limit` and `backend`.
"""

from __future__ import annotations

import time
from typing import Any, Dict, Optional, Tuple, Union

import redis
import redis.asyncio
import redis.asyncio.cluster
import redis.cluster
from limits.aio.storage import MovingWindowSupport as AsyncMovingWindowSupport
from limits.aio.storage import Storage as AsyncStorage
from limits.errors import ConfigurationError
from limits.storage import MovingWindowSupport, Storage

from . import Limiter
from . import asyncio as winlimit_asyncio
from ._limits_plan import (ASYNC_SCHEMES, DEFAULT_MAX_LIMIT, SCHEMES, SLIDING_WINDOW_COUNTER_REFUSED, Plan,
                           Target, counted, first_node, moving_window, parse_uri, second_peek_cost)

__all__ = ["AsyncWinlimitStorage", "WinlimitStorage"]


def _refuse_sliding_window_counter(self: object) -> None:
    # A property, so limits' strategy, which asks hasattr() when it is built, fails at start-up
    # with this error (hasattr passes on anything but AttributeError).
    raise ConfigurationError(SLIDING_WINDOW_COUNTER_REFUSED)


class _Options:
    """The storage's own keyword options, apart from redis-py's."""

    def __init__(self, uri: str, options: Dict[str, Any]):
        self.target: Target = parse_uri(uri)
        self.plan = Plan(str(options.pop("key_prefix", "LIMITS")), int(options.pop("max_limit", DEFAULT_MAX_LIMIT)))
        self.backend = str(options.pop("backend", "auto"))
        self.redis_options = options

    def client(self, plain: Any, cluster: Any) -> Any:
        """The redis-py client the URI names: `plain.from_url`, or `cluster.from_url` from
        the first node a cluster URI lists."""
        if self.target.cluster:
            return cluster.from_url(first_node(self.target.url), **self.redis_options)
        return plain.from_url(self.target.url, **self.redis_options)


class WinlimitStorage(Storage, MovingWindowSupport):
    """limits' storage over winlimit, for the synchronous strategies."""

    STORAGE_SCHEME = SCHEMES

    def __init__(self, uri: str, wrap_exceptions: bool = False, **options: Any):
        super().__init__(uri, wrap_exceptions=wrap_exceptions)
        settings = _Options(uri, options)
        self.plan = settings.plan
        self.client: Union[redis.Redis, redis.cluster.RedisCluster] = \
            settings.client(redis.Redis, redis.cluster.RedisCluster)
        self.limiter = Limiter(self.client, backend=settings.backend)

    @property
    def base_exceptions(self) -> Tuple[type, ...]:
        return (redis.RedisError, OSError)

    get_sliding_window = property(_refuse_sliding_window_counter)
    acquire_sliding_window_entry = property(_refuse_sliding_window_counter)

    def acquire_entry(self, key: str, limit: int, expiry: int, amount: int = 1) -> bool:
        args, options = self.plan.slide(key, limit, expiry)
        return self.limiter.slide(*args, cost=amount, **options).allowed

    def get_moving_window(self, key: str, limit: int, expiry: int) -> Tuple[float, int]:
        args, options = self.plan.slide(key, limit, expiry)
        first = self.limiter.slide(*args, peek=True, **options)
        cost = second_peek_cost(limit, first)
        second = None if cost is None else self.limiter.slide(*args, cost=cost, peek=True, **options)
        return moving_window(expiry, first, second)

    def incr(self, key: str, expiry: int, amount: int = 1) -> int:
        return counted(self.limiter.fixed(*self.plan.counter(key, expiry), cost=amount))

    def get(self, key: str) -> int:
        return counted(self.limiter.fixed(*self.plan.counter(key, 1), peek=True))

    def get_expiry(self, key: str) -> float:
        # The clock is read after the reply: read before, the expiry would come early by the call's time.
        decision = self.limiter.fixed(*self.plan.counter(key, 1), peek=True)
        return time.time() + decision.reset_after_ms / 1000

    def check(self) -> bool:
        try:
            return bool(self.client.ping())
        except (redis.RedisError, OSError):
            return False

    def clear(self, key: str) -> None:
        self.limiter.reset(self.plan.moving_key(key))
        self.limiter.reset(self.plan.counter_key(key))

    def reset(self) -> Optional[int]:
        """Deletes every key of this storage's prefix; the number deleted."""
        keys = list(self.client.scan_iter(match=f"{self.plan.prefix}:*", count=1000))
        return sum(int(self.client.delete(key)) for key in keys)


class AsyncWinlimitStorage(AsyncStorage, AsyncMovingWindowSupport):
    """limits' storage over winlimit, for `limits.aio`'s strategies."""

    STORAGE_SCHEME = ASYNC_SCHEMES

    def __init__(self, uri: str, wrap_exceptions: bool = False, **options: Any):
        super().__init__(uri, wrap_exceptions=wrap_exceptions)
        settings = _Options(uri, options)
        self.plan = settings.plan
        self.client: Union[redis.asyncio.Redis, redis.asyncio.cluster.RedisCluster] = \
            settings.client(redis.asyncio.Redis, redis.asyncio.cluster.RedisCluster)
        self.limiter = winlimit_asyncio.Limiter(self.client, backend=settings.backend)

    @property
    def base_exceptions(self) -> Tuple[type, ...]:
        return (redis.RedisError, OSError)

    get_sliding_window = property(_refuse_sliding_window_counter)
    acquire_sliding_window_entry = property(_refuse_sliding_window_counter)

    async def acquire_entry(self, key: str, limit: int, expiry: int, amount: int = 1) -> bool:
        args, options = self.plan.slide(key, limit, expiry)
        return (await self.limiter.slide(*args, cost=amount, **options)).allowed

    async def get_moving_window(self, key: str, limit: int, expiry: int) -> Tuple[float, int]:
        args, options = self.plan.slide(key, limit, expiry)
        first = await self.limiter.slide(*args, peek=True, **options)
        cost = second_peek_cost(limit, first)
        second = None if cost is None else await self.limiter.slide(*args, cost=cost, peek=True, **options)
        return moving_window(expiry, first, second)

    async def incr(self, key: str, expiry: int, amount: int = 1) -> int:
        return counted(await self.limiter.fixed(*self.plan.counter(key, expiry), cost=amount))

    async def get(self, key: str) -> int:
        return counted(await self.limiter.fixed(*self.plan.counter(key, 1), peek=True))

    async def get_expiry(self, key: str) -> float:
        decision = await self.limiter.fixed(*self.plan.counter(key, 1), peek=True)
        return time.time() + decision.reset_after_ms / 1000

    async def check(self) -> bool:
        try:
            return bool(await self.client.ping())
        except (redis.RedisError, OSError):
            return False

    async def clear(self, key: str) -> None:
        await self.limiter.reset(self.plan.moving_key(key))
        await self.limiter.reset(self.plan.counter_key(key))

    async def reset(self) -> Optional[int]:
        """Deletes every key of this storage's prefix; the number deleted."""
        keys = [key async for key in self.client.scan_iter(match=f"{self.plan.prefix}:*", count=1000)]
        return sum([int(await self.client.delete(key)) for key in keys])
