"""An in-process limiter: the same methods and decisions as `winlimit.Limiter`, kept in this
process's memory on its clock, with no Redis. The middlewares take one as `fallback=` for
when Redis fails.

    fallback = winlimit.memory.Limiter()
    fallback.slide("sms:+4915112345678", 3_600_000, 3).allowed

It counts per process: with N processes, each allows the whole limit. Its decisions are the
module's for the same calls at the same times (clients/spec/decisions.json, generated from
the module's core, is run on it); `decision.backend` is `"memory"`. The methods never block
(except with `wait=`, which sleeps the thread), so the limiter serves asyncio code as well.

Memory is bounded: a key is dropped once nothing in it counts any more (its windows have
passed, its bucket is full again), and at most `max_keys` keys are kept, the least recently
used dropped first.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from typing import TYPE_CHECKING, Any, Callable, List, Optional, Union

import redis

from . import _commands, _counting, _memory_parse
from ._cache import DEFAULT_SIZE, RejectionCache, forget, lookup, remember
from ._commands import Key
from ._decision import Decision
from ._memory_decide import Buckets, Counter, Log, Reply, Tat
from ._methods import SyncMethods

if TYPE_CHECKING:
    from .metrics import Metrics

__all__ = ["DEFAULT_MAX_KEYS", "Limiter"]

DEFAULT_MAX_KEYS = 100_000

Clock = Callable[[], int]
State = Union[Log, Buckets, Counter, Tat]


def wall_clock_ms() -> int:
    """Unix time in ms, the clock the module reads (ALIGN and buckets start at its multiples)."""
    return time.time_ns() // 1_000_000


def _text(arg: Any) -> str:
    return arg.decode("utf-8", "surrogateescape") if isinstance(arg, bytes) else str(arg)


class Limiter(SyncMethods):
    """`winlimit.Limiter`'s methods (`slide`, `fixed`, `gcra`, `reset`) over this process's
    memory. `clock` returns the time in ms since the epoch (default: the wall clock; tests
    pass their own); `max_keys` bounds the keys held; `name`, `cache_rejections`,
    `cache_size` and `metrics` are `winlimit.Limiter`'s (its decisions count as outcome
    `fallback`); `block_ms` is `winlimit.Limiter`'s too: the BLOCK of every recording call
    that gives none (not of peeks nor refunds). Safe to call from several threads."""

    def __init__(self, name: str = _commands.DEFAULT_NAME, *, max_keys: int = DEFAULT_MAX_KEYS,
                 clock: Clock = wall_clock_ms, cache_rejections: bool = False, cache_size: int = DEFAULT_SIZE,
                 max_limit: int = _memory_parse.DEFAULT_MAX_LIMIT, metrics: Optional["Metrics"] = None,
                 block_ms: Optional[int] = None):
        if isinstance(max_keys, bool) or not isinstance(max_keys, int) or max_keys < 1:
            raise ValueError(f"max_keys must be a positive int, not {max_keys!r}")
        self.name = _commands.check_name(name)
        self.max_keys = max_keys
        self.max_limit = max_limit
        self.clock = clock
        self.metrics = metrics
        self.block_ms = _commands.check_block(block_ms)
        self.rejections: Optional[RejectionCache] = RejectionCache(cache_size) if cache_rejections else None
        self._keys: "OrderedDict[str, State]" = OrderedDict()  # least recently used first
        self._calls_since_sweep = 0
        self._lock = threading.Lock()

    def __len__(self) -> int:
        """How many keys are held now."""
        return len(self._keys)

    def reset(self, key: Key) -> bool:
        """Forgets the key and its cached rejections; True if a key was held."""
        with self._lock:
            removed = self._keys.pop(_text(key), None) is not None
        forget(self.rejections, key)
        return removed

    def _once(self, call: _commands.Call) -> Decision:
        cached = lookup(self.rejections, call)
        if cached is not None:
            return _counting.decided(self.metrics, cached)
        started = time.perf_counter()
        reply = self.execute_command(*call.args)
        return _counting.decided(self.metrics, remember(self.rejections, call, Decision.from_reply(reply, call.policies,
                                                                                                   "memory")), started)

    def execute_command(self, command: Any, key: Any, *args: Any) -> Reply:
        """Answers one WINLIMIT command line (`"WINLIMIT.SLIDE", key, 1000, 3`) at the
        clock's time, as the module would: the five integers, or `redis.ResponseError` with
        the module's text. Every method goes through here."""
        command, words = _text(command).upper(), [_text(a) for a in args]
        peek = command.endswith("_RO")
        base = command[:-3] if peek else command
        with self._lock:
            now = self.clock()
            spec = _commands.COMMANDS.get(base)
            if spec is None:
                raise redis.ResponseError(f"unknown command '{base}' for winlimit.memory")
            state = self._state(_text(key), now, spec, words)
            reply = self._decide(state, now, spec, words, peek)
            if state.expires_at is not None and _text(key) not in self._keys:
                self._keys[_text(key)] = state
            self._bound(now)
        return reply

    def _decide(self, state: State, now: int, spec: _commands.Spec, words: List[str], peek: bool) -> Reply:
        # The state kind's parser reads the line; the command then refuses what its kind's other
        # commands take and it does not, as the module's parser for it does.
        if isinstance(state, (Log, Buckets)):
            slide = _memory_parse.slide(words, self.max_limit)
            _refuse_foreign_shape(spec, words)
            _memory_parse.check_mode(slide.extras, peek)
            return state.decide(now, slide, peek)
        if isinstance(state, Counter):
            fixed = _memory_parse.fixed(words)
            _refuse_foreign_shape(spec, words)
            _memory_parse.check_mode(fixed.extras, peek)
            return state.decide(now, fixed, peek)
        gcra = _memory_parse.gcra(words)
        _refuse_foreign_shape(spec, words)
        _memory_parse.check_mode(gcra.extras, peek)
        return state.decide(now, gcra, peek)

    def _state(self, key: str, now: int, spec: _commands.Spec, words: List[str]) -> State:
        """The key's live state (refreshed as the most recently used), or a new empty one of
        the command's kind, which is kept only once it records something."""
        state = self._keys.get(key)
        if state is not None and state.expires_at is not None and state.expires_at <= now:
            del self._keys[key]
            state = None
        fresh = _new_state(spec, words)
        if state is None:
            return fresh
        if state.kind != fresh.kind:
            raise redis.ResponseError("WRONGTYPE Operation against a key holding the wrong kind of value")
        self._keys.move_to_end(key)
        return state

    def _bound(self, now: int) -> None:
        """At most max_keys keys, least recently used out first; and once per as many calls as
        keys held, a sweep drops every key whose windows have passed (amortised: one step
        per call)."""
        while len(self._keys) > self.max_keys:
            self._keys.popitem(last=False)
        self._calls_since_sweep += 1
        if self._calls_since_sweep >= len(self._keys):
            self._calls_since_sweep = 0
            for key in [k for k, s in self._keys.items() if s.expires_at is not None and s.expires_at <= now]:
                del self._keys[key]


def _new_state(spec: _commands.Spec, words: List[str]) -> State:
    """An empty state of the command's kind; a log with BUCKET is a ring of buckets."""
    if spec.state == "log":
        bucket = _bucket_of(words)
        return Log() if bucket is None else Buckets(bucket)
    if spec.state == "counter":
        return Counter()
    return Tat()


def _refuse_foreign_shape(spec: _commands.Spec, words: List[str]) -> None:
    """A shape option that another command of the same state kind takes and this one does not
    (a counter without ALIGN) is an unknown option to this command. Option values are
    integers, so a word that is the option's keyword is the option."""
    foreign = {option.upper() for other in _commands.COMMANDS.values() if other.state == spec.state
               for option in other.shape if option not in spec.shape}
    for word in words:
        if word.upper() in foreign:
            raise _memory_parse.unknown_option(word)


def _bucket_of(words: List[str]) -> Optional[int]:
    """The BUCKET value of a SLIDE line, if it has one (checked when the line is parsed)."""
    for i, word in enumerate(words[:-1]):
        if word.upper() == "BUCKET":
            return _memory_parse.parse_int(words[i + 1])
    return None
