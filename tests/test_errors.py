"""Every bad input gets its exact error text and leaves the keyspace unchanged: for every row
of the kit's table, the cases its arguments and key type call for."""

import pytest

from kit import commands, editions
from kit.commands import WRONGTYPE
from kit.server import REDIS_62
from kit.errors import error_of
from kit.keyspace import snapshot
from kit.support import each_writers_key


W = 1000
COST_ERR = "ERR COST must be a positive integer"
RANGE_ERR = "ERR {} must be an integer between {} and {}"
LIMIT_ERR = RANGE_ERR.format("limit", 0, 10000)
WINDOW_ERR = RANGE_ERR.format("window_ms", 1, 10**12)
BAD_COSTS = ["0", "-1", "99999999999999999999", "abc", "1.5", ""]
READ_ONLY_OPTION = "ERR {} is an option of the recording commands, not of _RO"

PAIR_AFTER_OPTIONS = "ERR '{}' where an option was expected: window_ms limit pairs come before the options"
NO_LIMIT = "ERR window_ms {} has no limit after it"
PAIRS_IN_PLACE = [
    ([W, 5, "COST", 1, 2 * W, 3], PAIR_AFTER_OPTIONS.format(2 * W)),
    ([W, 5, 2 * W], NO_LIMIT.format(2 * W)),
    ([W, 5, 2 * W, "COST", 1], NO_LIMIT.format(2 * W)),
]
NINE_PAIRS = [x for i in range(1, 10) for x in (i * W, 5)]

# The cases each argument calls for, beyond the generic ones (ranges, options, key types),
# by the argument's name in the kit's table. An argument missing here fails the suite.
ARGUMENT_CASES = {
    "window": lambda c: PAIRS_IN_PLACE + [
        ([W, 5, 2 * W, 9, W, 3], f"ERR window_ms {W} given more than once"),
        (NINE_PAIRS, "ERR at most 8 window_ms limit pairs are allowed"),
        ([W, 5, 0, 3], WINDOW_ERR),
        ([W, 5, 2 * W, 10001], LIMIT_ERR),
        ([W, 5, 2 * W, -1], LIMIT_ERR),
    ],
    "window_ms": lambda c: PAIRS_IN_PLACE + [([W, 5, 2 * W, 9], f"ERR {c.writer.name.upper()} takes one window_ms limit pair")],
    "limit": lambda c: [],
    "period_ms": lambda c: [],
    "cost": lambda c: [([W, 5, "COST", cost], COST_ERR) for cost in BAD_COSTS] + [
        ([W, 5, "COSTS", 2], "ERR unknown option 'COSTS'"),
        ([W, 5, "COST", 2, "Nope"], "ERR unknown option 'Nope'"),
        ([W, 5, "Nope", "COST", 2], "ERR unknown option 'Nope'"),
    ],
    "bucket_ms": lambda c: [
        ([W, 5, "BUCKET", 0], f"ERR BUCKET must be an integer between 1 and {W}"),
        ([W, 5, "BUCKET", W + 1], f"ERR BUCKET must be an integer between 1 and {W}"),
        ([W, 5, "BUCKET", "x"], f"ERR BUCKET must be an integer between 1 and {W}"),
        ([10**6, 5, "BUCKET", 999], "ERR BUCKET must be an integer between 1000 and 1000000"),
        ([10, 5, 10**6, 5, "BUCKET", 10], "ERR BUCKET cannot serve these windows: the largest needs buckets "
                                          "of at least 1000 ms, the smallest allows at most 10 ms"),
        ([W, 10**12 + 1, "BUCKET", 10], RANGE_ERR.format("limit", 0, 10**12)),  # BUCKET lifts the limit's bound
    ],
    "align": lambda c: [
        ([W, 5, "ALIGN", "COST"], "ERR COST needs a value"),
        ([W, 5, "COST", "ALIGN"], COST_ERR),
        ([W, 5, "ALIGNED"], "ERR unknown option 'ALIGNED'"),
    ],
    "refund": lambda c: [([W, 5, "REFUND", n], "ERR REFUND must be a positive integer") for n in BAD_COSTS] + [
        ([W, 5, "REFUND", 1, "COST", 1], "ERR REFUND cannot be combined with COST"),
        ([W, 5, "COST", 2, "REFUND", 1], "ERR REFUND cannot be combined with COST"),
        ([W, 5, "REFUND", 1, "BLOCK", 10], "ERR REFUND cannot be combined with BLOCK"),
    ],
    "block_ms": lambda c: [([W, 5, "BLOCK", ms], RANGE_ERR.format("BLOCK", 1, 10**12))
                           for ms in ("0", "-1", str(10**12 + 1), "abc", "1.5", "")],
    "burst": lambda c: [([W, 5, "BURST", b], RANGE_ERR.format("BURST", 1, 10**12 * 5 // W)) for b in
                        (0, -1, 10**12 * 5 // W + 1, "x", "")],
}
TOKENS = sorted({t for c in commands.DEFAULT for t in c.tokens})


def test_every_argument_of_the_kits_table_has_its_cases():
    assert {a.name for c in commands.DEFAULT for a in c.arguments} <= set(ARGUMENT_CASES)


def bad_values(arg):
    """Below and above the range, and what is no integer as the module reads them."""
    return list(dict.fromkeys([str(arg.low - 1), "-1", str(arg.high + 1), "99999999999999999999",
                               "abc", "1.5", "1e3", "", "0x10", "+1", " 12"]))


def option_cases(c):
    """Each option given twice or without its value, and the other rows' options."""
    out = [([W, 5, "XYZ"], "ERR unknown option 'XYZ'"), ([W, 5, "xyz"], "ERR unknown option 'xyz'")]
    for arg in c.arguments:
        if arg.type == "pure-token":
            out.append(([W, 5, arg.token, arg.token.lower()], f"ERR option '{arg.token}' given more than once"))
        elif arg.token:
            out += [([W, 5, arg.token, 1, arg.token.lower(), 1], f"ERR option '{arg.token}' given more than once"),
                    ([W, 5, arg.token], f"ERR {arg.token} needs a value"),
                    ([W, 5, arg.token.lower()], f"ERR {arg.token} needs a value")]
    # A writer's own option (with its value) on its reader is named as such; another row's is unknown.
    return out + [([W, 5, t, 1], READ_ONLY_OPTION.format(t)) if t in c.writer.tokens
                  else ([W, 5, t], f"ERR unknown option '{t}'") for t in TOKENS if t not in c.tokens]


def argument_cases(c):
    """For every argument: its range errors (positional) and its own cases."""
    out = []
    valid = [W, 5]
    for i, arg in enumerate(c.positional):
        error = RANGE_ERR.format(arg.name, arg.low, arg.high)
        out += [(valid[:i] + [bad] + valid[i + 1:], error) for bad in bad_values(arg)]
    for arg in c.arguments:
        out += ARGUMENT_CASES[arg.name](c)
    return out + option_cases(c)


UNREADABLE_STRINGS = ("str", "neg", "float", "big", "empty")


def key_type_cases(c):
    """Keys of another type are WRONGTYPE; a string of another format gets its string error."""
    out = [(key, WRONGTYPE) for key in ("list", "hash", "set")]
    strings = [*UNREADABLE_STRINGS, *(f"own:{o.short}" for o in commands.WRITERS
                                      if o.key_type == "string" and o.state != c.state)]
    out += [(key, c.string_error if c.key_type == "string" else WRONGTYPE) for key in strings]
    if c.key_type == "string":
        out += [(f"own:{o.short}", WRONGTYPE) for o in commands.WRITERS if o.key_type != "string"]
    return [([key, *c.sample], error) for key, error in out]


def populate(r):
    """Keys of every kind: each writer's own key, with its TTL and without ("bare"), a
    stale entry in each log, and strings no command wrote. A call that wrongly writes before
    failing (trims, heals, creates) changes the snapshot."""
    each_writers_key(r, "own:", persist=False)
    each_writers_key(r, "bare:")
    r.rpush("list", "a", "b")
    r.hset("hash", "f", "v")
    r.sadd("set", "m")
    for key, value in [("str", "abc"), ("neg", "-3"), ("float", "2.5"), ("big", "99999999999999999999"),
                       ("empty", "")]:
        r.set(key, value)


def cases():
    out = []
    for c in commands.DEFAULT:
        wrong_number = f"ERR wrong number of arguments for '{c.name}' command"
        out += [(c, ["k", *c.sample][:n], wrong_number) for n in range(-c.arity - 1)]
        for key in ("new", f"own:{c.writer.short}", f"bare:{c.writer.short}"):
            out += [(c, [key, *args], expected) for args, expected in argument_cases(c)]
        out += [(c, args, expected) for args, expected in key_type_cases(c)]
    return out


@pytest.mark.parametrize("command,args,expected", [
    pytest.param(c, args, expected, id=" ".join(map(repr, [c.short, *args])))
    for c, args, expected in cases()])
def test_bad_input_gets_exact_error_and_changes_nothing(server, r, command, args, expected):
    populate(r)
    before = snapshot(r, dump=True)
    error = error_of(server.port, command.name.upper(), *args)
    if REDIS_62 and expected.startswith("ERR wrong number"):
        error = "ERR " + error[4:].lower()  # Redis 6.2 names the command as the client typed it
    assert error == expected
    assert snapshot(r, dump=True) == before


def extremes(c):
    narrower = editions.module_only(f"the library's exact range is narrower: {c.library_range}")
    return pytest.param(c, id=c.short, marks=[narrower] if c.library_range else [])


@pytest.mark.parametrize("command", [extremes(c) for c in commands.DEFAULT])
def test_extreme_valid_arguments_are_accepted(r, command):
    window, limit = command.positional
    assert r.execute_command(command.name, "k1", window.low, limit.high)[:2] == [1, limit.high]
    assert r.execute_command(command.name, "k2", window.high, limit.low)[:2] == [int(limit.low > 0), limit.low]
    assert r.execute_command(command.name, "k3", window.high, limit.high, "COST", 7)[:2] == [1, limit.high]
