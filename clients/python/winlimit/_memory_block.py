"""`BLOCK ms` for the memory limiter, as src/core/block.rs: a recording call with BLOCK that
is rejected with a wait blocks the key for `ms`; while blocked every call is rejected and
records nothing, peeks answer the same, and a rejection does not extend the block."""

from __future__ import annotations

from typing import List, Optional

NEVER = -1


def while_blocked(reply: List[int], now: int, until: int) -> List[int]:
    """The reply while blocked until `until`: rejected, nothing remaining, the larger wait."""
    left = until - now
    return [0, reply[1], 0, max(reply[3], left), max(reply[4], left)]


def starts(reply: List[int], peek: bool, block_ms: Optional[int], now: int) -> Optional[int]:
    """The end of the block this call's own reply starts (on a key not blocked already)."""
    if block_ms is None or peek or reply[0] or reply[3] == NEVER:
        return None
    return now + block_ms


def in_force(until: Optional[int], now: int) -> Optional[int]:
    """A stored block's end while it is still in force."""
    return until if until is not None and until > now else None
