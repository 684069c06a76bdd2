"""Rejections answered locally (`Limiter(client, cache_rejections=True)`).

A rejected call records nothing, and nothing anyone does can make the same request
acceptable before its `retry_after_ms` has passed, except deleting, resetting or evicting
the key. So the same command line can be answered from memory until then, without a round
trip: a flood from one key stays in the process.
"""

from __future__ import annotations

import math
import threading
import time
from collections import OrderedDict
from dataclasses import replace
from typing import Callable, Optional, Sequence, Tuple, cast

from ._commands import Arg, Call, Key
from ._decision import Decision, Policy

DEFAULT_SIZE = 10_000
Clock = Callable[[], float]


def monotonic_ms() -> float:
    return time.monotonic() * 1000


class RejectionCache:
    """Rejections by command line, each until its `retry_after_ms` ends on `clock` (this
    process's monotonic clock, in ms), at most `size` of them. The rules are the clients'
    shared ones (clients/spec/cache.json)."""

    def __init__(self, size: int = DEFAULT_SIZE, clock: Clock = monotonic_ms):
        if isinstance(size, bool) or not isinstance(size, int):
            raise TypeError(f"cache_size must be an int, not {type(size).__name__}")
        if size < 1:
            raise ValueError("cache_size must be at least 1")
        self.size = size
        self._clock = clock
        # command line -> (the rejection, when it arrived in ms), oldest first.
        self._entries: "OrderedDict[Tuple[Arg, ...], Tuple[Decision, float]]" = OrderedDict()
        self._kept_since_sweep = 0
        self._lock = threading.Lock()  # a sync limiter may be called from several threads

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, args: Tuple[Arg, ...], policies: Sequence[Policy]) -> Optional[Decision]:
        """The cached rejection for this command line, aged by the whole ms since it arrived
        (rounded down: never an earlier retry than the server's); None when there is none or
        it has ended (then it is dropped)."""
        with self._lock:
            entry = self._entries.get(args)
            if entry is None:
                return None
            decision, arrived = entry
            elapsed = self._clock() - arrived
            if elapsed >= decision.retry_after_ms:
                del self._entries[args]
                return None
        whole = math.floor(elapsed)
        return replace(decision, retry_after_ms=max(decision.retry_after_ms - whole, 1),
                       reset_after_ms=max(decision.reset_after_ms - whole, 0),
                       policies=tuple(policies), cached=True)

    def put(self, args: Tuple[Arg, ...], decision: Decision) -> None:
        """Keeps a rejection that a retry can end (`retry_after_ms` > 0), as of now, the newest."""
        if decision.allowed or decision.retry_after_ms <= 0:
            return
        with self._lock:
            now = self._clock()
            self._entries.pop(args, None)
            self._kept_since_sweep += 1
            # A sweep reads every entry: at most once per `size` kept, so O(1) per put.
            if len(self._entries) >= self.size and self._kept_since_sweep >= self.size:
                self._drop_ended(now)
                self._kept_since_sweep = 0
            while len(self._entries) >= self.size:
                self._entries.popitem(last=False)
            self._entries[args] = (decision, now)

    def forget(self, key: Key) -> None:
        """Drops every entry of a command line on `key` (a str and its UTF-8 bytes alike)."""
        wanted = _as_bytes(key)
        with self._lock:
            for args in [a for a in self._entries if _as_bytes(a[1]) == wanted]:
                del self._entries[args]

    def _drop_ended(self, now: float) -> None:
        for args in [a for a, (d, arrived) in self._entries.items() if now - arrived >= d.retry_after_ms]:
            del self._entries[args]


def _as_bytes(key: Arg) -> bytes:
    return key.encode() if isinstance(key, str) else key if isinstance(key, bytes) else str(key).encode()


def forget(cache: Optional[RejectionCache], key: Key) -> None:
    """Forgets every cached rejection for `key`, if the limiter caches."""
    if cache is not None:
        cache.forget(key)


def lookup(cache: Optional[RejectionCache], call: Call) -> Optional[Decision]:
    """The cached answer to `call`, if the limiter caches and the call records (a peek is
    never answered from the cache, nor is a refund: it must reach the key)."""
    return None if cache is None or call.peek or call.refund else cache.get(call.args, call.policies)


def remember(cache: Optional[RejectionCache], call: Call, decision: Decision) -> Decision:
    """Keeps `decision` for `call` if the limiter caches and the call records; returns it. A
    refund gave units back: the key's cached rejections are forgotten instead."""
    if cache is None or call.peek:
        return decision
    if call.refund:
        cache.forget(cast(Key, call.args[1]))  # a command line's second word is its key
    else:
        cache.put(call.args, decision)
    return decision
