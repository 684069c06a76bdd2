"""What every middleware does with a request, shared by the ASGI middleware, the FastAPI
dependency and the WSGI middleware (each only adapts its framework): the key, the check on
the limiter (through the counting's Recorder, the limiter's breaker, timeout and fallback),
the verdict, and the refund once the response's status is known. No web framework here.
"""

from __future__ import annotations

import inspect
import time
from typing import Any, Callable, List, Optional, Tuple, cast

import redis

from . import _protect, memory
from ._decision import Decision
from ._keys import address_key
from ._options import MiddlewareOptions
from ._refund import refund_failed
from ._shadow import ShadowLog
from ._verdict import Judge, Verdict

Outcome = Tuple[Verdict, Optional[Decision], Any]
"""The verdict, the decision it came from (None when the request is unlimited or Redis
failed) and the limiter the check was given (a `Recorder` when its units may be refunded)."""

UNLIMITED: Outcome = (Verdict(200), None, None)


def _limiter_for(limiter: Any, options: MiddlewareOptions) -> Any:
    """The limiter a middleware calls. A Redis limiter's twin with the middleware's timeout
    and fallback, sharing its breakers; an in-process `winlimit.memory.Limiter` as it is: it
    never fails, so it has no breaker, timeout or fallback (one given is refused)."""
    if isinstance(limiter, memory.Limiter):
        if options.fallback is not None:
            raise ValueError("fallback= is for a Redis limiter: a winlimit.memory.Limiter decides in this "
                             "process and never fails, so it needs none")
        return limiter
    fallback = options.fallback if options.fallback is not None else limiter.fallback
    _protect.watch(limiter.breakers, options.metrics)
    return _protect.twin(limiter, options.timeout, fallback)


def takes_request(check: Callable[..., Any]) -> bool:
    """Whether `check` takes the request as a third argument: `check(limiter, key, request)`
    rather than `check(limiter, key)`, told apart by its signature."""
    try:
        parameters = inspect.signature(check).parameters.values()
    except (TypeError, ValueError):  # no signature to read: the two-argument form
        return False
    positional = [p for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return len(positional) >= 3 or any(p.kind is p.VAR_POSITIONAL for p in parameters)


class Guard:
    """One middleware's or dependency's handling of a request. `limiter` is a Redis limiter
    (sync or asyncio); the middleware's `timeout` and `fallback` make a twin of it that shares
    its breakers. `peer(request)` is the framework's client address, and `remote_address`
    the exported default key function it stands for."""

    def __init__(self, limiter: Any, options: MiddlewareOptions, peer: Callable[[Any], Optional[str]],
                 remote_address: Callable[[Any], Optional[str]], shadow_log: Optional[ShadowLog] = None):
        self.options = options
        self.judge = Judge(options, shadow_log)
        self.limiter = _limiter_for(limiter, options)
        self.counting = options.counting()
        self.with_request = takes_request(options.check)
        key_func = options.key_func
        default = key_func is None or key_func is remote_address
        self.key_func = address_key(peer, options.ipv6_subnet) if default else cast(Callable[[Any], Any], key_func)

    @property
    def shadow_rejections(self) -> int:
        return self.judge.shadow_rejections

    def decide_sync(self, request: Any) -> Outcome:
        """The outcome of a sync check. Errors that are not Redis's (a bug in key_func or
        check) propagate."""
        key = self.key_func(request)
        if key is None:
            return UNLIMITED
        key = self.options.prefix + key
        started = time.perf_counter()
        limiter = self.counting.recorder(self.limiter)
        try:
            decision = self._checked(limiter, key, request)
        except (redis.RedisError, OSError) as e:
            return self.judge.failed(key, e, self.limiter.name), None, None
        return self.judge.judged(key, decision, started), decision, limiter

    async def decide(self, request: Any) -> Outcome:
        """The outcome of a check that may be async (key_func and check alike)."""
        key = self.key_func(request)
        if inspect.isawaitable(key):
            key = await key
        if key is None:
            return UNLIMITED
        key = self.options.prefix + key
        started = time.perf_counter()
        limiter = self.counting.recorder(self.limiter)
        try:
            decided = self._checked(limiter, key, request)
            decision = await decided if inspect.isawaitable(decided) else decided
        except (redis.RedisError, OSError) as e:
            return self.judge.failed(key, e, self.limiter.name), None, None
        return self.judge.judged(key, decision, started), decision, limiter

    def refunds(self, outcome: Outcome, status: Optional[int]) -> List[Callable[[], Any]]:
        """The refunds a request owes once it ended with `status` (None: the handler raised)."""
        _, decision, limiter = outcome
        return self.counting.due(decision, limiter, status)

    def may_refund(self, outcome: Outcome) -> bool:
        return self.counting.may_refund(outcome[1], outcome[2])

    def settle_sync(self, outcome: Outcome, status: Optional[int]) -> None:
        for refund in self.refunds(outcome, status):
            try:
                refund()
            except Exception as e:  # noqa: BLE001  (logged: the response is already decided)
                refund_failed(e)

    async def settle(self, outcome: Outcome, status: Optional[int]) -> None:
        """Gives the request's units back when it does not count."""
        for refund in self.refunds(outcome, status):
            try:
                done = refund()
                if inspect.isawaitable(done):
                    await done
            except Exception as e:  # noqa: BLE001  (logged: the response is already decided)
                refund_failed(e)

    def _checked(self, limiter: Any, key: str, request: Any) -> Any:
        """The check's call on `limiter` (the counting's view of the Redis limiter)."""
        check = self.options.check
        if self.with_request:
            return cast(Callable[[Any, str, Any], Any], check)(limiter, key, request)
        return cast(Callable[[Any, str], Any], check)(limiter, key)
