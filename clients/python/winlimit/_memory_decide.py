"""The module's decisions on state held in this process, one class per kind of key: the same
rules as the Rust core (src/core/), checked against it by clients/spec/decisions.json.

Each state answers `decide(now, request, peek)` with the five-integer reply and records an
accepted write in place; `expires_at` (ms) is when nothing in it counts any more, after which
the store drops it. An empty state (nothing recorded yet) has `expires_at` None.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, replace
from typing import Dict, List, Optional, Sequence, Tuple

from ._memory_block import in_force, starts, while_blocked
from ._memory_parse import MAX, Extras, FixedRequest, GcraRequest, SlideRequest, error

NEVER = -1
Reply = List[int]


def _remaining(limit: int, used: int) -> int:
    return max(0, min(limit - used, limit))


def _ceil_div(x: int, d: int) -> int:
    return -(-x // d)


@dataclass
class _Pair:
    window_ms: int
    limit: int
    remaining: int
    wait_ms: int
    reset_after_ms: int = 0


def _bind(pairs: Sequence[_Pair], allowed: bool) -> Reply:
    """The pair the reply describes (pairs shortest first; ties go to the longer window):
    accepted, the least remaining; a cost above a limit, the longest such; else the pair
    whose room comes last."""
    if allowed:
        pair = min(reversed(pairs), key=lambda p: p.remaining)
    elif any(p.wait_ms == NEVER for p in pairs):
        pair = [p for p in pairs if p.wait_ms == NEVER][-1]
    else:
        pair = max(reversed(pairs), key=lambda p: p.wait_ms)
    return [int(allowed), pair.limit, pair.remaining, pair.wait_ms, pair.reset_after_ms]


def _settle(pairs: Sequence[_Pair], recorded: int, newest_end: Optional[int], now: int) -> None:
    """What remains after recording, and when nothing counts in each window, given that the
    newest unit counts until `newest_end + window_ms`."""
    for pair in pairs:
        pair.remaining -= recorded
        pair.reset_after_ms = 0 if newest_end is None else max(0, newest_end + pair.window_ms - now)


def _peek_of(request: SlideRequest) -> SlideRequest:
    """The request a refund replies as: a peek of cost 1."""
    return replace(request, cost=1, extras=Extras())


def _start_block(state: "Log | Buckets", reply: Reply, now: int, block_ms: Optional[int], peek: bool) -> Reply:
    """A log's reply once a rejection with BLOCK blocks it; the key lives until the block ends."""
    until = starts(reply, peek, block_ms, now)
    if until is None:
        return reply
    state.blocked_until = until
    state.expires_at = until if state.expires_at is None else max(state.expires_at, until)
    return while_blocked(reply, now, until)


class Log:
    """The exact sliding log: one time per accepted unit, oldest first."""

    kind = "log"

    def __init__(self) -> None:
        self.times: List[int] = []
        self.expires_at: Optional[int] = None
        self.blocked_until: Optional[int] = None

    def decide(self, now: int, request: SlideRequest, peek: bool) -> Reply:
        largest = request.windows[-1][0]
        # Units that left the largest window count nowhere: drop them.
        del self.times[:bisect.bisect_right(self.times, now - largest)]
        blocked = in_force(self.blocked_until, now)
        if request.extras.refund is not None:
            if blocked is None and self.times:
                del self.times[max(0, len(self.times) - request.extras.refund):]
                self.expires_at = self.expires_at if self.times else now
            return self.decide(now, _peek_of(request), True)
        cost = request.cost
        pairs = [self._pair(now, w, limit, cost) for w, limit in request.windows]
        allowed = all(p.wait_ms == 0 for p in pairs)
        records = allowed and not peek
        newest = self.times[-1] if self.times else None
        if records:
            newest = now if newest is None else max(newest, now)
        _settle(pairs, cost if records else 0, newest, now)
        reply = _bind(pairs, allowed)
        if blocked is not None:
            return while_blocked(reply, now, blocked)
        if records:
            for _ in range(cost):
                bisect.insort(self.times, now)
            self.expires_at = max(self.times[-1], now) + largest
        return _start_block(self, reply, now, request.extras.block_ms, peek)

    def _pair(self, now: int, window_ms: int, limit: int, cost: int) -> _Pair:
        counted = len(self.times) - bisect.bisect_right(self.times, now - window_ms)
        if cost > limit:
            wait = NEVER
        elif counted + cost <= limit:
            wait = 0
        else:
            # Room comes once the unit `limit - cost` places from the newest leaves.
            wait = max(1, self.times[-(limit - cost) - 1] + window_ms - now)
        return _Pair(window_ms, limit, _remaining(limit, counted), wait)


class Buckets:
    """The bucketed log: units per bucket of `bucket_ms`, by bucket start."""

    kind = "buckets"

    def __init__(self, bucket_ms: int) -> None:
        self.bucket_ms = bucket_ms
        self.units: Dict[int, int] = {}
        self.expires_at: Optional[int] = None
        self.blocked_until: Optional[int] = None

    def _first_counted(self, now: int, window_ms: int) -> int:
        """The first bucket start `s` that counts: `now - (s + b - 1) < window_ms`."""
        b = self.bucket_ms
        return _ceil_div(now - window_ms - b + 2, b) * b

    def decide(self, now: int, request: SlideRequest, peek: bool) -> Reply:
        b = self.bucket_ms
        if request.bucket_ms != b:
            raise error(f"BUCKET {request.bucket_ms} differs from the BUCKET {b} this key was written with")
        largest = request.windows[-1][0]
        first = self._first_counted(now, largest)
        self.units = {s: u for s, u in self.units.items() if s >= first}
        blocked = in_force(self.blocked_until, now)
        if request.extras.refund is not None:
            if blocked is None:
                self._refund(now, request.extras.refund)
            return self.decide(now, _peek_of(request), True)
        pairs = [self._pair(now, w, limit, request.cost) for w, limit in request.windows]
        allowed = all(p.wait_ms == 0 for p in pairs)
        records = allowed and not peek
        newest = max(self.units) if self.units else None
        current = now // b * b
        if records:
            newest = current if newest is None else max(newest, current)
        _settle(pairs, request.cost if records else 0, None if newest is None else newest + b - 1, now)
        reply = _bind(pairs, allowed)
        if blocked is not None:
            return while_blocked(reply, now, blocked)
        if records and newest is not None:
            # Never into a bucket older than the newest (a clock that stepped back).
            self.units[newest] = self.units.get(newest, 0) + request.cost
            self.expires_at = newest + b - 1 + largest
        return _start_block(self, reply, now, request.extras.block_ms, peek)

    def _refund(self, now: int, n: int) -> None:
        """Up to `n` units leave the newest buckets first; a ring left empty goes."""
        for start in sorted(self.units, reverse=True):
            taken = min(n, self.units[start])
            self.units[start] -= taken
            n -= taken
            if not self.units[start]:
                del self.units[start]
        if not self.units and self.expires_at is not None:
            self.expires_at = now

    def _pair(self, now: int, window_ms: int, limit: int, cost: int) -> _Pair:
        first = self._first_counted(now, window_ms)
        counted_buckets = sorted((s, u) for s, u in self.units.items() if s >= first)
        counted = sum(u for _, u in counted_buckets)
        if cost > limit:
            wait = NEVER
        elif counted + cost <= limit:
            wait = 0
        else:
            # Buckets leave oldest first: the one whose departure frees enough room.
            need, freed, freeing = counted + cost - limit, 0, first
            for freeing, units in counted_buckets:  # noqa: B007  (read after the loop)
                freed += units
                if freed >= need:
                    break
            wait = max(1, freeing + self.bucket_ms - 1 + window_ms - now)
        return _Pair(window_ms, limit, _remaining(limit, counted), wait)


class Counter:
    """The fixed window: a count and the window's end; a count above 10^12 is a block."""

    kind = "counter"

    def __init__(self) -> None:
        self.count = 0
        self.expires_at: Optional[int] = None

    def decide(self, now: int, request: FixedRequest, peek: bool) -> Reply:
        live = self.expires_at is not None and self.expires_at > now
        if request.extras.refund is not None:
            if live and 0 < self.count <= MAX:
                self.count = max(self.count - request.extras.refund, 0)
            return self.decide(now, replace(request, cost=1, extras=Extras()), True)
        w, limit, cost = request.window_ms, request.limit, request.cost
        end = self.expires_at if live and self.expires_at is not None else (
            (now // w + 1) * w if request.align else now + w)
        count = self.count if live else 0
        allowed = cost <= limit and count + cost <= limit
        count_after = count + cost if allowed and not peek else count
        left = end - now
        retry = 0 if allowed else NEVER if cost > limit else left
        reply = [int(allowed), limit, _remaining(limit, count_after), retry, left if count_after > 0 else 0]
        if count > MAX:
            return while_blocked(reply, now, end)
        if allowed and not peek:
            self.count, self.expires_at = count_after, end
        until = starts(reply, peek, request.extras.block_ms, now)
        if until is not None:
            # One expiry holds the block and the window: the later end.
            self.count, self.expires_at = MAX + 1, max(until, end)
            return while_blocked(reply, now, self.expires_at)
        return reply


class Tat:
    """GCRA: the theoretical arrival time, exactly `ms + rem / den` ms, written with
    `den = limit`; a TAT written with another limit is read rounded up. A block keeps its
    end beside the TAT, which it pushed so that the next unit arrives when it ends."""

    kind = "tat"

    def __init__(self) -> None:
        self.tat: Optional[Tuple[int, int, int]] = None
        self.expires_at: Optional[int] = None
        self.blocked_until: Optional[int] = None

    def _units(self, now: int, limit: int) -> int:
        """The TAT in units of 1/limit ms, at least now."""
        now_u = now * limit
        if self.tat is None or self.expires_at is None or self.expires_at <= now:
            return now_u
        ms, rem, den = self.tat
        stored = ms * limit + (rem if den == limit else _ceil_div(rem * limit, den))
        return max(stored, now_u)

    def _write(self, tat_u: int, limit: int, blocked_until: Optional[int]) -> None:
        ms, rem = divmod(tat_u, limit)
        self.tat, self.expires_at, self.blocked_until = (ms, rem, limit), ms + (rem != 0), blocked_until

    def decide(self, now: int, request: GcraRequest, peek: bool) -> Reply:
        lim, p = request.limit, request.period_ms
        live = self.expires_at is not None and self.expires_at > now
        blocked = in_force(self.blocked_until, now) if live else None
        tat_u = self._units(now, lim)
        if request.extras.refund is not None:
            if blocked is None and tat_u > now * lim:
                self._refund(now, request, tat_u, request.extras.refund)
            return self.decide(now, replace(request, cost=1, extras=Extras()), True)
        reply, records = self._bucket(now, request, tat_u, peek)
        if blocked is not None:
            return while_blocked(reply, now, blocked)
        if records:
            self._write(tat_u + request.cost * p, lim, None)
        until = starts(reply, peek, request.extras.block_ms, now)
        if until is not None:
            pushed = until * lim + (request.burst - 1) * p
            self._write(max(tat_u, pushed), lim, until)
            return self.decide(now, replace(request, extras=Extras()), True)
        return reply

    def _refund(self, now: int, request: GcraRequest, tat_u: int, n: int) -> None:
        """The TAT back by `n` emission intervals, never before now (a full bucket: no key)."""
        after = max(tat_u - n * request.period_ms, now * request.limit)
        if after == now * request.limit:
            self.tat, self.expires_at, self.blocked_until = None, now, None
        else:
            self._write(after, request.limit, None)

    def _bucket(self, now: int, request: GcraRequest, tat_u: int, peek: bool) -> Tuple[Reply, bool]:
        """The bucket's own reply, and whether the call records its cost."""
        lim, p, burst = request.limit, request.period_ms, request.burst
        capacity = burst * p
        debt = tat_u - now * lim

        def whole(debt: int) -> int:
            return min(max(capacity - debt, 0) // p, burst)

        if request.cost > burst:
            return [0, burst, whole(debt), NEVER, _ceil_div(debt, lim)], False
        cost = request.cost * p
        allowed = debt + cost <= capacity
        records = allowed and not peek
        after = debt + cost if records else debt
        retry = 0 if allowed else _ceil_div(debt + cost - capacity, lim)
        return [int(allowed), burst, whole(after), retry, _ceil_div(after, lim)], records
