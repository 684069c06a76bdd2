"""winlimit: a Python client for the winlimit Redis module.

    import redis, winlimit
    limiter = winlimit.Limiter(redis.Redis())
    decision = limiter.slide("sms:+4915112345678", 3_600_000, 3)
    if not decision.allowed:
        ...  # decision.headers() has RateLimit-Policy, RateLimit and Retry-After

`winlimit.asyncio.Limiter` is the same over redis.asyncio; `winlimit.asgi` (the `asgi` extra)
has a Starlette/FastAPI middleware and a FastAPI dependency.
"""

from __future__ import annotations

import inspect
from typing import Any, Optional, Protocol, Union

import redis

from . import _commands
from ._commands import Key, ModuleNotLoaded, Pairs
from ._decision import Decision, Policy

__all__ = ["Decision", "Limiter", "ModuleNotLoaded", "Pairs", "Policy"]
__version__ = "0.4.0"


class SyncClient(Protocol):
    """What the limiter needs of its client: `redis.Redis` and `redis.cluster.RedisCluster`
    both have it."""

    def execute_command(self, *args: Any, **options: Any) -> Any: ...


class Limiter:
    """One method per winlimit command, each returning a `Decision`.

    `client` is a `redis.Redis` or a `redis.cluster.RedisCluster` (the commands declare their
    key, so a cluster client sends each call to the key's node). `name` names the policy in
    the header fields (`"winlimit"`; with several windows, `"winlimit-60s"` and so on); every
    method takes `name=` to override it for one call.
    """

    def __init__(self, client: SyncClient, name: str = _commands.DEFAULT_NAME):
        # redis-py's methods carry no types, so a type checker cannot tell the clients apart.
        if inspect.iscoroutinefunction(client.execute_command):
            raise TypeError("an asyncio client goes to winlimit.asyncio.Limiter")
        self.client = client
        self.name = _commands.check_name(name)

    def slide(self, key: Key, window_ms: Union[int, Pairs], limit: Optional[int] = None, *,
              cost: int = 1, bucket: Optional[int] = None, peek: bool = False,
              name: Optional[str] = None) -> Decision:
        """WINLIMIT.SLIDE: `slide(key, 60_000, 100)`, or several windows at once:
        `slide(key, [(1_000, 10), (60_000, 100)])`. `bucket=ms` counts per bucket (BUCKET);
        `peek=True` asks WINLIMIT.SLIDE_RO, which records nothing."""
        return self._run(_commands.slide(key, window_ms, limit, cost, bucket, peek, self._name(name)))

    def fixed(self, key: Key, window_ms: int, limit: int, *, cost: int = 1, align: bool = False,
              peek: bool = False, name: Optional[str] = None) -> Decision:
        """WINLIMIT.FIXED; `align=True` starts windows at multiples of window_ms since the
        epoch (ALIGN); `peek=True` asks WINLIMIT.FIXED_RO."""
        return self._run(_commands.fixed(key, window_ms, limit, cost, align, peek, self._name(name)))

    def gcra(self, key: Key, period_ms: int, limit: int, *, burst: Optional[int] = None, cost: int = 1,
             peek: bool = False, name: Optional[str] = None) -> Decision:
        """WINLIMIT.GCRA: `limit` units per `period_ms`, at most `burst` at once (default
        `limit`); the decision's `limit` is the bucket's capacity. `peek=True` asks
        WINLIMIT.GCRA_RO."""
        return self._run(_commands.gcra(key, period_ms, limit, burst, cost, peek, self._name(name)))

    def _name(self, name: Optional[str]) -> str:
        return self.name if name is None else _commands.check_name(name)

    def _run(self, call: _commands.Call) -> Decision:
        try:
            reply = self.client.execute_command(*call.args)
        except redis.ResponseError as e:
            raise _commands.translate(e) from e
        if inspect.isawaitable(reply):
            if inspect.iscoroutine(reply):
                reply.close()  # never awaited: nothing was sent
            raise TypeError("an asyncio client goes to winlimit.asyncio.Limiter")
        return Decision.from_reply(reply, call.policies)
