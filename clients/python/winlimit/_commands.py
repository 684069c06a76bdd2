"""WINLIMIT command lines and the policies they check, and the errors they raise; shared by
the sync and asyncio clients, which only send them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Dict, Optional, Sequence, Tuple, TypeVar, Union

import redis

from ._decision import Policy, sf_string

Key = Union[str, bytes]
Arg = Union[str, bytes, int]
Pairs = Sequence[Tuple[int, int]]

DEFAULT_NAME = "winlimit"

Builder = TypeVar("Builder", bound=Callable[..., "Call"])


@dataclass(frozen=True)
class Spec:
    """One command this client sends, declared once beside its builder: the module's writer
    (the reader is its `_RO` form), the method that sends it, the state it keeps under its key
    (clients/spec/command_table.json's `state`: `log`, `counter` or `tat`) and the options that
    shape its limit (what its reader takes, the cost aside). Every list of commands in the
    client (the methods a refund records, the options it repeats, the memory limiter's
    states) is read from here."""

    command: str
    method: str
    state: str
    shape: Tuple[str, ...] = ()


COMMANDS: Dict[str, Spec] = {}
"""Every command the client sends, by the writer's name."""


def _defines(command: str, state: str, shape: Tuple[str, ...] = ()) -> Callable[[Builder], Builder]:
    def register(builder: Builder) -> Builder:
        COMMANDS[command] = Spec(command, builder.__name__, state, shape)
        return builder

    return register


class ModuleNotLoaded(redis.ResponseError):
    """The server does not know the WINLIMIT commands: the module is not loaded there.

    A `redis.ResponseError`, so code that handles Redis errors handles this one too."""


@dataclass(frozen=True)
class Call:
    """One command line to send, and the policies its reply describes."""

    args: Tuple[Arg, ...]
    policies: Tuple[Policy, ...]

    @property
    def peek(self) -> bool:
        """A `_RO` command: it records nothing."""
        return str(self.args[0]).endswith("_RO")

    @property
    def refund(self) -> bool:
        """A REFUND: it gives units back, so rejections remembered for its key may be wrong."""
        return "REFUND" in self.args[2:]


def check_name(name: str) -> str:
    """A policy name usable in the header fields (a Structured Field String)."""
    sf_string(name)
    return name


def _int(what: str, value: object) -> int:
    # Python's types are checked here; ranges are the server's to judge, in its own words.
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{what} must be an int, not {type(value).__name__}")
    return value


def window_label(window_ms: int) -> str:
    """How a policy of several windows is named after its window: whole seconds as `60s`,
    anything else in ms (`1500ms`). Unique per call, as the server refuses a window_ms given
    twice."""
    return f"{window_ms // 1000}s" if window_ms % 1000 == 0 else f"{window_ms}ms"


def _command(command: str, peek: bool) -> str:
    return command + "_RO" if peek else command


def check_block(block_ms: Optional[int]) -> Optional[int]:
    """A limiter's default `block_ms`: an int (the server judges its range) or None."""
    return None if block_ms is None else _int("block_ms", block_ms)


def default_block(default: Optional[int], block_ms: Optional[int], peek: bool, refund: Optional[int]) -> Optional[int]:
    """The block a call asks: its own, else the limiter's default, which a peek or a refund
    (where BLOCK is refused) does not take."""
    if block_ms is not None or peek or refund is not None:
        return block_ms
    return default


def _options(cost: int, refund: Optional[int], block_ms: Optional[int]) -> Tuple[Arg, ...]:
    # REFUND with COST or BLOCK is sent as given: the server refuses the pair in its own words.
    args: Tuple[Arg, ...] = () if _int("cost", cost) == 1 else ("COST", cost)
    if refund is not None:
        args += ("REFUND", _int("refund", refund))
    if block_ms is not None:
        args += ("BLOCK", _int("block_ms", block_ms))
    return args


@_defines("WINLIMIT.SLIDE", "log", ("bucket",))
def slide(key: Key, window_ms: Union[int, Pairs], limit: Optional[int] = None, *, cost: int = 1,
          refund: Optional[int] = None, block_ms: Optional[int] = None, bucket: Optional[int] = None,
          peek: bool = False, name: str = DEFAULT_NAME) -> Call:
    """WINLIMIT.SLIDE[_RO] key window_ms limit [window_ms limit ...] [COST n | REFUND n] [BLOCK ms]
    [BUCKET ms]."""
    pairs = _slide_pairs(window_ms, limit)
    args: Tuple[Arg, ...] = (_command("WINLIMIT.SLIDE", peek), key)
    for w, lim in pairs:
        args += (w, lim)
    args += _options(cost, refund, block_ms)
    if bucket is not None:
        args += ("BUCKET", _int("bucket", bucket))
    policies: Tuple[Policy, ...]
    if len(pairs) == 1:
        policies = (Policy(name, pairs[0][1], pairs[0][0]),)
    else:
        policies = tuple(Policy(f"{name}-{window_label(w)}", lim, w) for w, lim in pairs)
    return Call(args, policies)


def _slide_pairs(window_ms: Union[int, Pairs], limit: Optional[int]) -> Sequence[Tuple[int, int]]:
    if isinstance(window_ms, int):
        if limit is None:
            raise TypeError("slide(key, window_ms, limit): the limit is missing")
        return [(_int("window_ms", window_ms), _int("limit", limit))]
    if limit is not None:
        raise TypeError("pass either window_ms and limit, or a sequence of (window_ms, limit) pairs")
    pairs = [(_int("window_ms", w), _int("limit", lim)) for w, lim in window_ms]
    if not pairs:
        raise ValueError("slide needs at least one (window_ms, limit) pair")
    return pairs


@_defines("WINLIMIT.FIXED", "counter", ("align",))
def fixed(key: Key, window_ms: int, limit: int, *, cost: int = 1, refund: Optional[int] = None,
          block_ms: Optional[int] = None, align: bool = False, peek: bool = False, name: str = DEFAULT_NAME) -> Call:
    """WINLIMIT.FIXED[_RO] key window_ms limit [COST n | REFUND n] [BLOCK ms] [ALIGN]."""
    args: Tuple[Arg, ...] = (_command("WINLIMIT.FIXED", peek), key, _int("window_ms", window_ms), _int("limit", limit))
    args += _options(cost, refund, block_ms)
    if align:
        args += ("ALIGN",)
    return Call(args, (Policy(name, limit, window_ms),))


@_defines("WINLIMIT.GCRA", "tat", ("burst",))
def gcra(key: Key, period_ms: int, limit: int, *, burst: Optional[int] = None, cost: int = 1,
         refund: Optional[int] = None, block_ms: Optional[int] = None, peek: bool = False,
         name: str = DEFAULT_NAME) -> Call:
    """WINLIMIT.GCRA[_RO] key period_ms limit [BURST n] [COST n | REFUND n] [BLOCK ms]."""
    args: Tuple[Arg, ...] = (_command("WINLIMIT.GCRA", peek), key, _int("period_ms", period_ms), _int("limit", limit))
    capacity = limit if burst is None else _int("burst", burst)
    if burst is not None:
        args += ("BURST", burst)
    args += _options(cost, refund, block_ms)
    # The bucket refills `limit` units per period_ms: empty to full takes capacity / limit
    # periods, rounded up. A limit <= 0 is refused by the server; the policy is then never read.
    refill_ms = -(-capacity * period_ms // limit) if limit > 0 else period_ms
    return Call(args, (Policy(name, capacity, refill_ms),))


NOT_LOADED = ("the winlimit module is not loaded on this server. Load it at start-up with "
              "`redis-server --loadmodule /path/to/libwinlimit.so` (or `loadmodule /path/to/libwinlimit.so` "
              "in redis.conf), or at run time with `MODULE LOAD /path/to/libwinlimit.so`; in a cluster, "
              "on every node.")
"""What ModuleNotLoaded adds to the server's text, after " -- "."""


def translate(error: redis.ResponseError) -> redis.ResponseError:
    """An unknown-command error becomes ModuleNotLoaded, naming the fix; any other error is
    the server's own, unchanged."""
    text = str(error)
    if "unknown command" in text.lower():
        return ModuleNotLoaded(f"{text} -- {NOT_LOADED}")
    return error
