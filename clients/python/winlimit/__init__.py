"""winlimit: a Python client for the winlimit Redis module.

    import redis, winlimit
    limiter = winlimit.Limiter(redis.Redis())
    decision = limiter.slide("sms:+4915112345678", 3_600_000, 3)
    if not decision.allowed:
        ...  # decision.headers() has RateLimit-Policy, RateLimit and Retry-After

`winlimit.asyncio.Limiter` is the same over redis.asyncio; `winlimit.asgi` (the `asgi` extra)
has a Starlette/FastAPI middleware and a FastAPI dependency; `winlimit.memory.Limiter` makes
the same decisions in this process, a middleware's `fallback=` while Redis is down.
"""

from __future__ import annotations

import inspect
import time
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Dict, Optional, Protocol, Tuple

import redis

from . import _backend, _commands, _counting
from ._cache import DEFAULT_SIZE, RejectionCache, forget, lookup, remember
from ._backend import MissingPermission
from ._commands import Key, ModuleNotLoaded, Pairs
from ._decision import Decision, Policy
from ._keys import ip_key
from ._sync_methods import SyncMethods

if TYPE_CHECKING:
    from .metrics import Metrics

__all__ = ["Decision", "Limiter", "MissingPermission", "ModuleNotLoaded", "Pairs", "Policy", "ip_key"]
__version__ = "0.4.0"


class SyncClient(Protocol):
    """What the limiter needs of its client: `redis.Redis` and `redis.cluster.RedisCluster`
    both have it."""

    def execute_command(self, *args: Any, **options: Any) -> Any: ...


class Limiter(SyncMethods):
    """One method per winlimit command, each returning a `Decision`.

    `client` is a `redis.Redis` or a `redis.cluster.RedisCluster` (the commands declare their
    key, so a cluster client sends each call to the key's node). `name` names the policy in
    the header fields (`"winlimit"`; with several windows, `"winlimit-60s"` and so on); every
    method takes `name=` to override it for one call.

    `wait=seconds` on a method sleeps `retry_after_ms` and calls again while rejected, until
    accepted or until the next sleep would end after the deadline (counted from the call's
    start); the decision's `waited_ms` says how long it slept. `cache_rejections=True`
    answers a command line that was just rejected from memory until its `retry_after_ms`
    ends (at most `cache_size` of them), with `cached` true: nothing is sent to Redis. It is
    wrong in one case: a key deleted, reset or evicted by someone else is still refused until
    the entry ends.

    `backend` chooses which edition of winlimit answers: `"module"` (the WINLIMIT commands),
    `"functions"` (the Functions library, by FCALL, loaded where it is missing), `"scripts"`
    (the same code by EVALSHA, for Redis 6), or `"auto"` (the default): the module where the
    server has it, else the library where the server has Functions, else the scripts, decided
    once per server by each limiter (per node of a cluster). The decisions are the same;
    `decision.backend` says which answered.

    `block_ms=ms` is the BLOCK of every recording call that gives no `block_ms` of its own
    (not of peeks, nor of refunds, where the server refuses it).
    """

    def __init__(self, client: SyncClient, name: str = _commands.DEFAULT_NAME, *,
                 cache_rejections: bool = False, cache_size: int = DEFAULT_SIZE, metrics: Optional["Metrics"] = None,
                 backend: str = "auto", block_ms: Optional[int] = None):
        # redis-py's methods carry no types, so a type checker cannot tell the clients apart.
        if inspect.iscoroutinefunction(client.execute_command):
            raise TypeError("an asyncio client goes to winlimit.asyncio.Limiter")
        self.client = client
        self.name = _commands.check_name(name)
        self.block_ms = _commands.check_block(block_ms)
        self.backends = _backend.Chooser(backend)
        self.rejections: Optional[RejectionCache] = RejectionCache(cache_size) if cache_rejections else None
        self.metrics = metrics

    def reset(self, key: Key) -> bool:
        """Deletes the key, whatever its method, and forgets every cached rejection for it,
        so its next call starts afresh ("unblock this user now"); True if a key was removed.
        `key` is the whole key, as the methods were given it (a middleware's prefix too)."""
        removed = self._send(("DEL", key))
        forget(self.rejections, key)
        return bool(removed)

    def _once(self, call: _commands.Call) -> Decision:
        cached = lookup(self.rejections, call)
        if cached is not None:
            return _counting.decided(self.metrics, cached)
        started = time.perf_counter()
        try:
            reply, backend = self._answer(call)
        except (redis.RedisError, OSError):
            _counting.failed(self.metrics, call.policies[0].name)
            raise
        decision = remember(self.rejections, call, Decision.from_reply(reply, call.policies, backend))
        return _counting.decided(self.metrics, decision, started)

    def _answer(self, call: _commands.Call) -> Any:
        # A cluster: the node serving the key, which is detected, loaded and called by itself.
        node = _backend.node_of(self.client, call.args[1])
        flow = self.backends.answer(call, self.backends.node(node.name if node else ""))
        return _backend.drive(flow, lambda request: self._raw(
            request.args, {} if request.routed or node is None else {"target_nodes": node}))

    def _send(self, args: Tuple[_commands.Arg, ...]) -> Any:
        try:
            return self._raw(args, {})
        except redis.ResponseError as e:
            raise _commands.translate(e) from e

    def _raw(self, args: Tuple[_commands.Arg, ...], options: Dict[str, Any]) -> Any:
        reply = self.client.execute_command(*args, **options)
        if inspect.isawaitable(reply):
            if inspect.iscoroutine(reply):
                reply.close()  # never awaited: nothing was sent
            raise TypeError("an asyncio client goes to winlimit.asyncio.Limiter")
        return reply
