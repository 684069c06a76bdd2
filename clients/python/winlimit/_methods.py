"""The command methods every limiter shares, one definition each: the Redis ones
(`winlimit.Limiter`, `winlimit.asyncio.Limiter`) and the in-process `winlimit.memory.Limiter`.
Each builds its command line and hands it to `_run`, which answers it: a Decision for the
synchronous limiters, an awaitable of one for the asyncio limiter."""

from __future__ import annotations

from typing import Generic, Optional, TypeVar, Union

from . import _commands, _wait
from ._commands import Key, Pairs
from ._decision import Decision


Answer = TypeVar("Answer")


class CommandMethods(Generic[Answer]):
    """slide, fixed and gcra over `_run`; a subclass sets `name` and `block_ms`."""

    name: str
    block_ms: Optional[int]

    def slide(self, key: Key, window_ms: Union[int, Pairs], limit: Optional[int] = None, *,
              cost: int = 1, refund: Optional[int] = None, block_ms: Optional[int] = None,
              bucket: Optional[int] = None, peek: bool = False,
              name: Optional[str] = None, wait: Optional[float] = None) -> Answer:
        """WINLIMIT.SLIDE: `slide(key, 60_000, 100)`, or several windows at once:
        `slide(key, [(1_000, 10), (60_000, 100)])`. `bucket=ms` counts per bucket (BUCKET);
        `peek=True` asks WINLIMIT.SLIDE_RO, which records nothing.

        Every method takes `refund=n` (REFUND: give back up to `n` units, the newest first;
        the decision is the peek that follows) and `block_ms=ms` (BLOCK: once rejected, the
        key is refused for `ms`); see README's "REFUND n and BLOCK ms"."""
        call = _commands.slide(key, window_ms, limit, cost=cost, refund=refund, block_ms=self._block(block_ms, peek, refund), bucket=bucket, peek=peek, name=self._name(name))
        return self._run(call, _wait.check(wait, peek, refund))

    def fixed(self, key: Key, window_ms: int, limit: int, *, cost: int = 1, refund: Optional[int] = None,
              block_ms: Optional[int] = None, align: bool = False, peek: bool = False, name: Optional[str] = None, wait: Optional[float] = None) -> Answer:
        """WINLIMIT.FIXED; `align=True` starts windows at multiples of window_ms since the
        epoch (ALIGN); `peek=True` asks WINLIMIT.FIXED_RO."""
        call = _commands.fixed(key, window_ms, limit, cost=cost, refund=refund, block_ms=self._block(block_ms, peek, refund), align=align, peek=peek, name=self._name(name))
        return self._run(call, _wait.check(wait, peek, refund))

    def gcra(self, key: Key, period_ms: int, limit: int, *, burst: Optional[int] = None, cost: int = 1,
             refund: Optional[int] = None, block_ms: Optional[int] = None, peek: bool = False, name: Optional[str] = None, wait: Optional[float] = None) -> Answer:
        """WINLIMIT.GCRA: `limit` units per `period_ms`, at most `burst` at once (default
        `limit`); the decision's `limit` is the bucket's capacity. `peek=True` asks
        WINLIMIT.GCRA_RO."""
        call = _commands.gcra(key, period_ms, limit, burst=burst, cost=cost, refund=refund, block_ms=self._block(block_ms, peek, refund), peek=peek, name=self._name(name))
        return self._run(call, _wait.check(wait, peek, refund))

    def _name(self, name: Optional[str]) -> str:
        return self.name if name is None else _commands.check_name(name)

    def _block(self, block_ms: Optional[int], peek: bool, refund: Optional[int]) -> Optional[int]:
        """The call's block_ms, or the limiter's for a recording call that gives none."""
        return _commands.default_block(self.block_ms, block_ms, peek, refund)

    def _run(self, call: _commands.Call, wait: Optional[float]) -> Answer:
        raise NotImplementedError


class SyncMethods(CommandMethods[Decision]):
    """The synchronous limiters: `_once` answers a call, `_run` waits around it."""

    def _run(self, call: _commands.Call, wait: Optional[float]) -> Decision:
        return _wait.run(lambda: self._once(call), wait)

    def _once(self, call: _commands.Call) -> Decision:
        raise NotImplementedError
