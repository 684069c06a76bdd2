"""WINLIMIT command lines read as the module reads them, for the memory limiter: the same
grammar, bounds and error texts (src/core/parse.rs, slide.rs, fixed.rs, gcra.rs), checked by
clients/spec/decisions.json. Errors are `redis.ResponseError`s worded as redis-py reports the
module's (without the leading `ERR `)."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from typing import Callable, List, Optional, Sequence, Tuple

import redis

MAX = 10**12
"""The bound of window_ms, period_ms, the large limits and BURST."""

MAX_WINDOWS = 8
MAX_BUCKETS_PER_WINDOW = 1000
DEFAULT_MAX_LIMIT = 10_000
"""winlimit.max-limit's default: the exact log's largest limit."""

_INTEGER = re.compile(r"-?(0|[1-9][0-9]*)")


@dataclass(frozen=True)
class Extras:
    """`REFUND n` and `BLOCK ms`, shared by the recording commands (src/core/parse.rs)."""
    refund: Optional[int] = None
    block_ms: Optional[int] = None


@dataclass(frozen=True)
class SlideRequest:
    windows: Tuple[Tuple[int, int], ...]  # (window_ms, limit), shortest first
    cost: int
    bucket_ms: Optional[int]
    extras: Extras = field(default_factory=Extras)


@dataclass(frozen=True)
class FixedRequest:
    window_ms: int
    limit: int
    cost: int
    align: bool
    extras: Extras = field(default_factory=Extras)


@dataclass(frozen=True)
class GcraRequest:
    period_ms: int
    limit: int
    burst: int
    cost: int
    extras: Extras = field(default_factory=Extras)


def error(text: str) -> redis.ResponseError:
    return redis.ResponseError(text)


def parse_int(word: str) -> Optional[int]:
    """An integer as Redis writes it (no `+`, no leading zeros, no `-0`), within i64."""
    if not _INTEGER.fullmatch(word) or word == "-0":
        return None
    value = int(word)
    return value if -(2**63) <= value < 2**63 else None


def _looks_like_integer(word: str) -> bool:
    digits = word[1:] if word.startswith("-") else word
    return digits.isascii() and digits.isdigit()


def _ranged(word: str, name: str, low: int, high: int) -> int:
    value = parse_int(word)
    if value is None or not low <= value <= high:
        raise error(f"{name} must be an integer between {low} and {high}")
    return value


def _cost(word: str) -> int:
    value = parse_int(word)
    if value is None or value < 1:
        raise error("COST must be a positive integer")
    return value


class _Options:
    """Keyword options: case-insensitive, any order, each at most once; REFUND and BLOCK
    taken as every recording command takes them."""

    def __init__(self, words: Sequence[str]):
        self.words = list(words)
        self.seen: List[str] = []
        self.refund: Optional[int] = None
        self.block_ms: Optional[int] = None

    def extra(self, word: str) -> bool:
        """Takes `word` (and its value) when it is REFUND or BLOCK."""
        if word.upper() == "REFUND":
            value = parse_int(self.value("REFUND"))
            if value is None or value < 1:
                raise error("REFUND must be a positive integer")
            self.refund = value
        elif word.upper() == "BLOCK":
            self.block_ms = _ranged(self.value("BLOCK"), "BLOCK", 1, MAX)
        else:
            return False
        return True

    def extras(self) -> Extras:
        """The REFUND and BLOCK given, once their combinations are checked."""
        if self.refund is not None and "COST" in self.seen:
            raise error("REFUND cannot be combined with COST")
        if self.refund is not None and self.block_ms is not None:
            raise error("REFUND cannot be combined with BLOCK")
        return Extras(self.refund, self.block_ms)

    def next_word(self) -> Optional[str]:
        return self.words.pop(0) if self.words else None

    def once(self, name: str) -> None:
        if name in self.seen:
            raise error(f"option '{name}' given more than once")
        self.seen.append(name)

    def value(self, name: str) -> str:
        self.once(name)
        if not self.words:
            raise error(f"{name} needs a value")
        return self.words.pop(0)


def _printable(word: str) -> str:
    """An argument fit to echo in an error: control characters replaced, at most 64 shown."""
    shown = "".join("?" if unicodedata.category(c) == "Cc" else c for c in word[:64])
    return shown + "..." if len(word) > 64 else shown


def unknown_option(word: str) -> redis.ResponseError:
    return error(f"unknown option '{_printable(word)}'")


def _unexpected(word: str) -> redis.ResponseError:
    if _looks_like_integer(word):
        return error(f"'{_printable(word)}' where an option was expected: window_ms limit pairs come before the options")
    return unknown_option(word)


def _windows(args: Sequence[str], bound_for: Callable[[Sequence[str]], int]
             ) -> Tuple[List[Tuple[int, int]], Sequence[str]]:
    """The `window_ms limit` pairs at the front, shortest first, and the options after."""
    if len(args) < 2:
        raise error(f"window_ms must be an integer between 1 and {MAX}")
    raw = [(_ranged(args[0], "window_ms", 1, MAX), args[1])]
    rest = list(args[2:])
    while rest:
        if len(raw) > MAX_WINDOWS:
            raise error(f"at most {MAX_WINDOWS} window_ms limit pairs are allowed")
        if not _looks_like_integer(rest[0]):
            break
        window = _ranged(rest[0], "window_ms", 1, MAX)
        if len(rest) < 2 or not _looks_like_integer(rest[1]):
            raise error(f"window_ms {window} has no limit after it")
        raw.append((window, rest[1]))
        rest = rest[2:]
    if len(raw) > MAX_WINDOWS:
        raise error(f"at most {MAX_WINDOWS} window_ms limit pairs are allowed")
    bound = bound_for(rest)
    pairs: List[Tuple[int, int]] = []
    for window, limit in raw:
        value = _ranged(limit, "limit", 0, bound)
        if any(w == window for w, _ in pairs):
            raise error(f"window_ms {window} given more than once")
        pairs.append((window, value))
    return sorted(pairs), rest


def slide(args: Sequence[str], max_limit: int = DEFAULT_MAX_LIMIT) -> SlideRequest:
    """`window_ms limit [window_ms limit ...] [COST n] [BUCKET ms]`."""
    def bound(options: Sequence[str]) -> int:
        return MAX if any(o.upper() == "BUCKET" for o in options) else max_limit

    pairs, rest = _windows(args, bound)
    cost, bucket_ms = 1, None
    options = _Options(rest)
    while (word := options.next_word()) is not None:
        if word.upper() == "COST":
            cost = _cost(options.value("COST"))
        elif options.extra(word):
            continue
        elif word.upper() == "BUCKET":
            bucket_ms = _bucket_ms(options.value("BUCKET"), pairs)
        else:
            raise _unexpected(word)
    return SlideRequest(tuple(pairs), cost, bucket_ms, options.extras())


def _bucket_ms(word: str, pairs: Sequence[Tuple[int, int]]) -> int:
    smallest, largest = pairs[0][0], pairs[-1][0]
    value = parse_int(word)
    if value is not None and 1 <= value <= smallest and (largest + value - 1) // value <= MAX_BUCKETS_PER_WINDOW:
        return value
    least = (largest + MAX_BUCKETS_PER_WINDOW - 1) // MAX_BUCKETS_PER_WINDOW
    if least > smallest:
        raise error(f"BUCKET cannot serve these windows: the largest needs buckets of at least {least} ms, "
                    f"the smallest allows at most {smallest} ms")
    raise error(f"BUCKET must be an integer between {least} and {smallest}")


def fixed(args: Sequence[str]) -> FixedRequest:
    """`window_ms limit [COST n] [ALIGN]`."""
    pairs, rest = _windows(args, lambda _: MAX)
    if len(pairs) > 1:
        raise error("WINLIMIT.FIXED takes one window_ms limit pair")
    cost, align = 1, False
    options = _Options(rest)
    while (word := options.next_word()) is not None:
        if word.upper() == "COST":
            cost = _cost(options.value("COST"))
        elif options.extra(word):
            continue
        elif word.upper() == "ALIGN":
            options.once("ALIGN")
            align = True
        else:
            raise _unexpected(word)
    return FixedRequest(pairs[0][0], pairs[0][1], cost, align, options.extras())


def gcra(args: Sequence[str]) -> GcraRequest:
    """`period_ms limit [BURST n] [COST n]`."""
    if len(args) < 2:
        raise error(f"period_ms must be an integer between 1 and {MAX}")
    period_ms = _ranged(args[0], "period_ms", 1, MAX)
    limit = _ranged(args[1], "limit", 1, MAX)
    burst_word, cost = None, 1
    options = _Options(args[2:])
    while (word := options.next_word()) is not None:
        if word.upper() == "BURST":
            burst_word = options.value("BURST")
        elif word.upper() == "COST":
            cost = _cost(options.value("COST"))
        elif not options.extra(word):
            raise unknown_option(word)
    extras = options.extras()
    # A full refill (burst * period_ms / limit) must fit in 10^12 ms.
    max_burst = min(MAX * limit // period_ms, MAX)
    burst = min(limit, max_burst) if burst_word is None else _ranged(burst_word, "BURST", 1, max_burst)
    return GcraRequest(period_ms, limit, burst, cost, extras)


def check_mode(extras: Extras, peek: bool) -> None:
    """REFUND and BLOCK are refused on the `_RO` commands, which write nothing."""
    for name, given in (("REFUND", extras.refund is not None), ("BLOCK", extras.block_ms is not None)):
        if given and peek:
            raise error(f"{name} is an option of the recording commands, not of _RO")
