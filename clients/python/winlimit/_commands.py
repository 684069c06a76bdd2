"""Building WINLIMIT command lines and reading their errors, shared by the sync and asyncio
clients."""

from __future__ import annotations

from typing import List, Optional, Sequence, Tuple, Union

import redis

Pairs = Union[Tuple[int, int], Sequence[Tuple[int, int]]]


class ModuleNotLoaded(redis.ResponseError):
    """The server does not know the WINLIMIT commands: the module is not loaded there."""


def pairs_of(window_ms: Union[int, Pairs], limit: Optional[int]) -> List[Tuple[int, int]]:
    """`slide(key, 60000, 100)` or `slide(key, [(1000, 10), (60000, 100)])`."""
    if isinstance(window_ms, int):
        if limit is None:
            raise TypeError("a window_ms needs its limit")
        return [(window_ms, limit)]
    if limit is not None:
        raise TypeError("pass either window_ms and limit, or a list of (window_ms, limit) pairs")
    return [(int(w), int(lim)) for w, lim in window_ms]


def slide(key: str, pairs: List[Tuple[int, int]], cost: int, bucket: Optional[int], peek: bool) -> list:
    args: list = ["WINLIMIT.SLIDE_RO" if peek else "WINLIMIT.SLIDE", key]
    for w, lim in pairs:
        args += [w, lim]
    if cost != 1:
        args += ["COST", cost]
    if bucket is not None:
        args += ["BUCKET", bucket]
    return args


def fixed(key: str, window_ms: int, limit: int, cost: int, align: bool, peek: bool) -> list:
    args: list = ["WINLIMIT.FIXED_RO" if peek else "WINLIMIT.FIXED", key, window_ms, limit]
    if cost != 1:
        args += ["COST", cost]
    if align:
        args.append("ALIGN")
    return args


def gcra(key: str, period_ms: int, limit: int, burst: Optional[int], cost: int, peek: bool) -> list:
    args: list = ["WINLIMIT.GCRA_RO" if peek else "WINLIMIT.GCRA", key, period_ms, limit]
    if burst is not None:
        args += ["BURST", burst]
    if cost != 1:
        args += ["COST", cost]
    return args


def translate(error: redis.ResponseError) -> redis.ResponseError:
    """An unknown-command error becomes ModuleNotLoaded, naming the fix; anything else is
    the server's own error."""
    text = str(error)
    if "unknown command" in text.lower() and "winlimit" in text.lower():
        return ModuleNotLoaded(
            f"{text}: the winlimit module is not loaded on this server. Load it with "
            "`redis-server --loadmodule /path/to/libwinlimit.so`, `loadmodule` in redis.conf, "
            "or `MODULE LOAD /path/to/libwinlimit.so`.")
    return error
