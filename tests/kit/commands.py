"""The module's commands, in one table every test that walks them reads: adding a command
is one row here (and the tests that assert its own behaviour).

Each row: the name, the short name INFO and `call` use, whether it writes (the `_RO`
variants and nothing else read), the ACL categories of the core commands it replaces (which
Redis 7.2+ and Valkey show), whether it exists only with `cell-compat yes`, and sample
arguments after the key: a call that is accepted on an empty key, with a limit of 5.
"""

import collections
from dataclasses import dataclass
from typing import Tuple


@dataclass(frozen=True)
class Command:
    name: str
    writes: bool
    categories: frozenset
    sample: Tuple
    cell_compat: bool = False

    @property
    def short(self):
        """The name INFO's fields and `call` use: `slide`, `gcra_ro`, `cl_throttle`."""
        return self.name.split(".", 1)[1] if self.name.startswith("winlimit.") else self.name.replace(".", "_")


def _row(name, writes, categories, sample, **kw):
    return Command(name, writes, frozenset(categories), tuple(sample), **kw)


TABLE = (
    _row("winlimit.slide", True, {"@write", "@sortedset", "@slow"}, (60000, 5)),
    _row("winlimit.fixed", True, {"@write", "@string", "@fast"}, (60000, 5)),
    _row("winlimit.slide_ro", False, {"@read", "@sortedset", "@slow"}, (60000, 5)),
    _row("winlimit.fixed_ro", False, {"@read", "@string", "@fast"}, (60000, 5)),
    _row("winlimit.gcra", True, {"@write", "@string", "@fast"}, (60000, 5)),
    _row("winlimit.gcra_ro", False, {"@read", "@string", "@fast"}, (60000, 5)),
    _row("cl.throttle", True, {"@write", "@string", "@fast"}, (4, 5, 60), cell_compat=True),
)

# What a server loaded without cell-compat registers.
DEFAULT = tuple(c for c in TABLE if not c.cell_compat)
WRITERS = tuple(c for c in DEFAULT if c.writes)
READERS = tuple(c for c in DEFAULT if not c.writes)


def by_name(name):
    """The row named `name` (as COMMAND names it: lower case)."""
    [command] = [c for c in TABLE if c.name == name]
    return command


def by_short(short):
    """The row whose short name is `short`."""
    [command] = [c for c in TABLE if c.short == short]
    return command


Reply = collections.namedtuple("Reply", "allowed limit remaining retry_after reset_after")


def call(client, command, *args):
    """WINLIMIT.<command> args... (command e.g. "slide", "fixed_ro") -> Reply."""
    return Reply._make(client.execute_command("WINLIMIT." + command.upper(), *args))
