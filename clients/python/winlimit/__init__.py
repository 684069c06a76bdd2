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

import concurrent.futures
import contextvars
import inspect
import threading
import time
from typing import TYPE_CHECKING, Any, Dict, Optional, Protocol, Tuple

import redis

from . import _backend, _commands, _counting, _protect
from ._breaker import DEFAULT_FAILURES, DEFAULT_OPEN_MS, REFUSE, BreakerOptions, Breakers
from ._cache import DEFAULT_SIZE, RejectionCache, forget, lookup, remember
from ._backend import MissingPermission
from ._commands import Key, ModuleNotLoaded, Pairs
from ._decision import Decision, Policy
from ._failures import BreakerOpen, CallTimedOut
from ._keys import ip_key
from ._options import check_timeout
from ._methods import SyncMethods

if TYPE_CHECKING:
    from . import memory
    from .metrics import Metrics

__all__ = ["BreakerOpen", "CallTimedOut", "Decision", "Limiter", "MissingPermission", "ModuleNotLoaded", "Pairs", "Policy", "ip_key"]
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

    A circuit breaker per server (per cluster node) stops calling a Redis that fails: after
    `failures` (3) consecutive failures (a connection error, no answer within `timeout`, or a
    LOADING, BUSY, MASTERDOWN, TRYAGAIN, CLUSTERDOWN or READONLY reply) no call is sent for
    `open_ms` (1000), doubling on each failed probe up to `max_open_ms` (30000, or `open_ms` if longer); then one
    call probes Redis, and its answer closes the breaker. `breaker=False` turns it off.
    While Redis fails or the breaker is open, `fallback=winlimit.memory.Limiter()` decides
    the very command line; without one, a call while open raises `BreakerOpen` (a
    `redis.ConnectionError`) at once, without sending. `timeout=seconds` bounds each call by
    running it on a pool thread (None, the default: the client's own `socket_timeout`, as a
    blocking call cannot be abandoned).
    """

    def __init__(self, client: SyncClient, name: str = _commands.DEFAULT_NAME, *,
                 cache_rejections: bool = False, cache_size: int = DEFAULT_SIZE, metrics: Optional["Metrics"] = None,
                 backend: str = "auto", block_ms: Optional[int] = None, fallback: Optional["memory.Limiter"] = None,
                 timeout: Optional[float] = None, breaker: bool = True, failures: int = DEFAULT_FAILURES,
                 open_ms: int = DEFAULT_OPEN_MS, max_open_ms: Optional[int] = None):
        # redis-py's methods carry no types, so a type checker cannot tell the clients apart.
        if inspect.iscoroutinefunction(client.execute_command):
            raise TypeError("an asyncio client goes to winlimit.asyncio.Limiter")
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
        self._pool = _Pool()

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
        # A cluster: the node serving the key, which has a breaker and a backend of its own.
        node = _backend.node_of(self.client, call.args[1])
        breaker = self.breakers.of(node.name if node else "")
        action, ticket = breaker.admit()
        if action == REFUSE:
            return _protect.refused(self, call, breaker)
        started = time.perf_counter()
        try:
            reply, backend = self._within_time(call, node)
        except (redis.RedisError, OSError) as e:
            return _protect.failed(self, call, breaker, ticket, e)
        breaker.done(ticket)
        decision = remember(self.rejections, call, Decision.from_reply(reply, call.policies, backend))
        return _counting.decided(self.metrics, decision, started)

    def _within_time(self, call: _commands.Call, node: Any) -> Any:
        """The call's answer, or CallTimedOut once `timeout` has passed. A sync call cannot be
        interrupted: with a timeout it runs on a pool thread, and the caller stops waiting
        when the time is up (the thread waits on, until the client's socket_timeout)."""
        if self.timeout is None:
            return self._answer(call, node)
        future = self._pool.get().submit(contextvars.copy_context().run, self._answer, call, node)
        try:
            return future.result(timeout=self.timeout)
        except concurrent.futures.TimeoutError:
            if future.done():
                raise  # the call's own TimeoutError, not the wait's
            future.cancel()  # not started yet: it never will be (the breaker may open)
            raise CallTimedOut(self.timeout) from None

    def _answer(self, call: _commands.Call, node: Any) -> Any:
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


class _Pool:
    """The threads a limiter with a timeout runs its calls on, made at the first such call and
    shared by the limiter's twins."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pool: Optional[concurrent.futures.ThreadPoolExecutor] = None

    def get(self) -> concurrent.futures.ThreadPoolExecutor:
        with self._lock:
            if self._pool is None:
                self._pool = concurrent.futures.ThreadPoolExecutor(thread_name_prefix="winlimit")
            return self._pool
