"""The module's commands, in one table every test that walks them reads: adding a command
is one row here (and the tests that assert its own behaviour).

Each row says everything the generic tests need of a command:
- its name (and the short name INFO and `call` use), whether it writes (the `_RO` variants
  and nothing else read), and its writer or reader partner;
- the ACL categories of the core commands it replaces (which Redis 7.2+ and Valkey show);
- its arguments after the key, as COMMAND DOCS lists them, with the range of each
  positional integer (test_errors derives the range errors from them): read from the
  module's command table (clients/spec/command_table.json, generated from
  src/redis/commands.rs), as are its partner and whether it writes;
- its key type, the format of what it stores there (commands sharing a format read each
  other's keys), and the error it gives on a string of another format;
- sample arguments after the key (a call accepted on an empty key, limit 5 in second
  place), other valid shapes (variants), and the calls test_hostile_data makes;
- which editions have it: the module, the Functions library, the scripts (kit.editions),
  and where the library's exact range is narrower than the module's, which it is;
  and whether the module registers it only with `cell-compat yes`.

A test that meets a command, an argument or an edition it does not know fails; it never
assumes another command's answer.
"""

import collections
import json
import os
from dataclasses import dataclass
from typing import Optional, Tuple

# Every edition of winlimit (kit.editions runs the suite against one of them).
EDITIONS = frozenset({"module", "functions", "scripts"})

WRONGTYPE = "WRONGTYPE Operation against a key holding the wrong kind of value"
NOT_AN_INTEGER = "ERR value is not an integer or out of range"
NO_GCRA_STATE = "ERR this key holds no GCRA state"
W = 60000


@dataclass(frozen=True)
class Arg:
    """One argument after the key, as COMMAND DOCS lists it; `low`/`high` bound a
    positional integer (its error: `ERR <name> must be an integer between low and high`)."""
    name: str
    type: str  # "integer", "pure-token" or "block"
    token: Optional[str] = None
    multiple: bool = False
    arguments: Tuple["Arg", ...] = ()
    low: Optional[int] = None
    high: Optional[int] = None
    optional: bool = False

    def docs(self):
        """This argument as COMMAND DOCS replies it (without display_text)."""
        out = {"name": self.name, "type": self.type}
        if self.token:
            out["token"] = self.token
        flags = (["optional"] if self.optional else []) + (["multiple"] if self.multiple else [])
        if flags:
            out["flags"] = flags
        if self.arguments:
            out["arguments"] = [a.docs() for a in self.arguments]
        return out


def _integer(name, low=None, high=None, token=None, optional=False):
    return Arg(name, "integer", token=token, low=low, high=high, optional=optional or token is not None)


TABLE_PATH = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                          "clients", "spec", "command_table.json")
with open(TABLE_PATH, encoding="utf-8") as _f:
    ROWS = {row["name"].lower(): row for row in json.load(_f)["commands"]}


def _bounds(name, argument):
    """The range of `argument` of command `name`, as the table gives it; a bound a module
    setting sets (winlimit.max-limit) at the setting's default, as the suite's servers have it."""
    r = ROWS[name]["ranges"][argument]
    return int(r["min"]), int(r["max"] if r["max"] is not None else r["max_config_default"])


def _option(option):
    if option["value"] == "none":
        return Arg(option["argument"], "pure-token", token=option["token"], optional=True)
    return _integer(option["argument"], token=option["token"])


def _arguments(name):
    """Its arguments after the key, from the table: the positional integers with their
    ranges (a block of window pairs when several_windows), then its options."""
    row = ROWS[name]
    positional = tuple(_integer(a, *_bounds(name, a)) for a in row["positional"])
    if row["several_windows"]:
        positional = (Arg("window", "block", multiple=True, arguments=positional),)
    return positional + tuple(_option(o) for o in row["options"])


# The recording commands' REFUND n and BLOCK ms (issue 28), after COST; not the `_RO` readers'.
RECORDING_ONLY = (_integer("refund", token="REFUND"), _integer("block_ms", token="BLOCK"))
# CL.THROTTLE's quantity is an optional positional integer, which the table's rows (for the
# clients, which do not send CL.THROTTLE) leave out.
CELL_ARGS = tuple(_integer(a, *_bounds("cl.throttle", a)) for a in ROWS["cl.throttle"]["positional"]) + (
    _integer("quantity", optional=True),)


@dataclass(frozen=True)
class Command:
    name: str
    writes: bool
    partner: Optional[str]  # the writer of a `_RO` reader, the reader of a writer
    categories: frozenset
    arguments: Tuple[Arg, ...]
    key_type: str  # "zset" or "string": what it writes; other core types are WRONGTYPE
    state: str  # the format it stores: "log", "counter", "gcra"
    string_error: str  # its reply on a string of another format
    sample: Tuple
    variants: Tuple[Tuple, ...] = ()
    hostile: Tuple[Tuple, ...] = ()
    editions: frozenset = EDITIONS
    library_range: Optional[str] = None  # the library's exact range, where narrower than the module's
    cell_compat: bool = False

    @property
    def short(self):
        """The name INFO's fields and `call` use: `slide`, `gcra_ro`, `cl_throttle`."""
        return self.name.split(".", 1)[1] if self.name.startswith("winlimit.") else self.name.replace(".", "_")

    @property
    def writer(self):
        """The row that writes this command's key: itself, or its partner."""
        return self if self.writes else by_name(self.partner)

    @property
    def tokens(self):
        """Its options' keywords: COST, BUCKET, ..."""
        return {a.token for a in self.arguments if a.token}

    @property
    def positional(self):
        """The integers every call gives before the options (a block's members), in order."""
        out = []
        for a in self.arguments:
            if not a.optional:
                out += list(a.arguments) or [a]
        return out

    @property
    def arity(self):
        """As COMMAND INFO gives it: the name, the key and the positional integers, or more."""
        return -(2 + len(self.positional))


def _pair(writer, reader, categories, key, writer_calls, reader_calls, variants=(), library_range=None):
    """A writer and its `_RO` reader: the same keys and sample calls, each its own arguments
    from the table. key: its key type, the format it stores and its error on a string of
    another format."""
    key_type, state, string_error = key
    common = dict(key_type=key_type, state=state, string_error=string_error, sample=(W, 5),
                  variants=variants, library_range=library_range)
    assert ROWS[writer]["partner"].lower() == reader and ROWS[writer]["records"], f"{writer}: the table's writer of {reader}"
    return (Command(writer, True, reader, frozenset({"@write", *categories}), _arguments(writer), hostile=writer_calls,
                    **common),
            Command(reader, False, writer, frozenset({"@read", *categories}), _arguments(reader), hostile=reader_calls,
                    **common))


# Hostile calls: periods of W, so a key a call writes does not expire while keyspaces are
# compared (a 1 s GCRA period did, once, on a loaded machine).
SLIDE, SLIDE_RO = _pair(
    "winlimit.slide", "winlimit.slide_ro", {"@sortedset", "@slow"}, ("zset", "log", WRONGTYPE),
    ((W, 10), (1000, 2, W, 10, "COST", 2), (W, 10, "BUCKET", 1000), (1000, 2, W, 10, "BUCKET", 1000, "COST", 2)),
    ((W, 10), (W, 10, "BUCKET", 1000)),
    variants=((W, 5, "BUCKET", 1000),))
FIXED, FIXED_RO = _pair(
    "winlimit.fixed", "winlimit.fixed_ro", {"@string", "@fast"}, ("string", "counter", NOT_AN_INTEGER),
    ((W, 10), (W, 10, "ALIGN")), ((W, 10),), variants=((W, 5, "ALIGN"),))
GCRA, GCRA_RO = _pair(
    "winlimit.gcra", "winlimit.gcra_ro", {"@string", "@fast"}, ("string", "gcra", NO_GCRA_STATE),
    ((W, 10), (W, 3, "BURST", 7, "COST", 2)), ((W, 10),), variants=((W, 5, "BURST", 7),),
    library_range="period_ms up to 30 days with BURST, limit and COST up to 10^6 (BURST * period_ms below 2^53)")
CL_THROTTLE = Command("cl.throttle", True, None, frozenset({"@write", "@string", "@fast"}), CELL_ARGS, "string",
                      "gcra", NO_GCRA_STATE, (4, 5, 60), editions=frozenset({"module"}), cell_compat=True)

TABLE = (SLIDE, FIXED, SLIDE_RO, FIXED_RO, GCRA, GCRA_RO, CL_THROTTLE)

# What a server loaded without cell-compat registers.
DEFAULT = tuple(c for c in TABLE if not c.cell_compat)
WRITERS = tuple(c for c in DEFAULT if c.writes)
READERS = tuple(c for c in DEFAULT if not c.writes)
# The module's keyless administration commands (no rate limit, no row): test_resetstat.
ADMIN = ("winlimit.resetstat",)


def by_name(name):
    """The row named `name` (as COMMAND names it: lower case); fails for an unknown name."""
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
