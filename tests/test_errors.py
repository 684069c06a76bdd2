"""Every bad input gets its exact error text and leaves the keyspace unchanged."""

import uuid

import pytest

from kit.server import REDIS_62
from kit.commands import call
from kit.errors import error_of
from kit.keyspace import server_ms, snapshot


W = 1000
COMMANDS = ["slide", "fixed", "slide_ro", "fixed_ro"]

WINDOW_ERR = "ERR window_ms must be an integer between 1 and 1000000000000"
LIMIT_ERR = "ERR limit must be an integer between 0 and 10000"
FIXED_LIMIT_ERR = "ERR limit must be an integer between 0 and 1000000000000"
COST_ERR = "ERR COST must be a positive integer"
COST_NEEDS_VALUE = "ERR COST needs a value"
WRONGTYPE = "WRONGTYPE Operation against a key holding the wrong kind of value"
NOT_INTEGER = "ERR value is not an integer or out of range"

BAD_WINDOWS = ["0", "-1", "1000000000001", "99999999999999999999", "abc", "1.5", "1e3", ""]
FIXED_BAD_LIMITS = ["-1", "1000000000001", "99999999999999999999", "abc", "2.5", ""]
BAD_LIMITS = ["-1", "10001", "99999999999999999999", "abc", "2.5", ""]
BAD_COSTS = ["0", "-1", "99999999999999999999", "abc", "1.5", ""]


PAIR_AFTER_OPTIONS = "ERR '{}' where an option was expected: window_ms limit pairs come before the options"
NO_LIMIT = "ERR window_ms {} has no limit after it"
NINE_PAIRS = [x for i in range(1, 10) for x in (i * W, 5)]
SEVERAL_WINDOWS = [
    ([W, 5, 2 * W, 9, W, 3], f"ERR window_ms {W} given more than once"),
    (NINE_PAIRS, "ERR at most 8 window_ms limit pairs are allowed"),
    ([W, 5, 0, 3], WINDOW_ERR),
    ([W, 5, 2 * W, 10001], LIMIT_ERR),
    ([W, 5, 2 * W, -1], LIMIT_ERR),
]
BUCKET = [
    ([W, 5, "BUCKET", 0], f"ERR BUCKET must be an integer between 1 and {W}"),
    ([W, 5, "BUCKET", W + 1], f"ERR BUCKET must be an integer between 1 and {W}"),
    ([W, 5, "BUCKET", "x"], f"ERR BUCKET must be an integer between 1 and {W}"),
    ([W, 5, "BUCKET"], "ERR BUCKET needs a value"),
    ([W, 5, "BUCKET", 10, "bucket", 10], "ERR option 'BUCKET' given more than once"),
    ([10**6, 5, "BUCKET", 999], "ERR BUCKET must be an integer between 1000 and 1000000"),
    ([10, 5, 10**6, 5, "BUCKET", 10], "ERR BUCKET cannot serve these windows: the largest needs buckets "
                                      "of at least 1000 ms, the smallest allows at most 10 ms"),
    ([W, 10**12 + 1, "BUCKET", 10], "ERR limit must be an integer between 0 and 1000000000000"),
    ([W, 10001], LIMIT_ERR),
]


def populate(r):
    """Keys of every kind; "z" holds a stale entry and "n" has no TTL, so a call that
    wrongly writes before failing (trims, heals, creates) changes the snapshot."""
    now = server_ms(r)
    call(r, "slide", "z", 60000, 5)
    r.zadd("z", {str(uuid.uuid4()): now - 10**7, str(uuid.uuid4()): now - 10})
    call(r, "fixed", "c", 60000, 5)
    r.set("n", 2)
    r.rpush("list", "a", "b")
    r.hset("hash", "f", "v")
    r.sadd("set", "m")
    r.set("str", "abc")
    for key, value in [("neg", "-3"), ("float", "2.5"), ("big", "99999999999999999999"), ("empty", "")]:
        r.set(key, value)


def cases():
    out = []
    for cmd in COMMANDS:
        is_fixed = cmd.startswith("fixed")
        out += [(cmd, args, f"ERR wrong number of arguments for 'winlimit.{cmd}' command")
                for args in ([], ["k"], ["k", W])]
        for key in (["new", "c", "n"] if is_fixed else ["new", "z"]):
            out += [(cmd, [key, w, 5], WINDOW_ERR) for w in BAD_WINDOWS]
            out += [(cmd, [key, W, lim], FIXED_LIMIT_ERR if is_fixed else LIMIT_ERR)
                    for lim in (FIXED_BAD_LIMITS if is_fixed else BAD_LIMITS)]
            out += [(cmd, [key, W, 5, "COST", c], COST_ERR) for c in BAD_COSTS]
            out += [(cmd, [key, W, 5, *opts], COST_NEEDS_VALUE)
                    for opts in (["COST"], ["cost"])]
            out += [(cmd, [key, W, 5, *opts], f"ERR unknown option '{bad}'")
                    for opts, bad in [(["XYZ"], "XYZ"), (["xyz"], "xyz"), (["COSTS", 2], "COSTS"),
                                      (["COST", 2, "Nope"], "Nope"), (["Nope", "COST", 2], "Nope")]]
            out += [(cmd, [key, W, 5, *opts], "ERR option 'COST' given more than once")
                    for opts in (["COST", 1, "COST", 2], ["cost", 1, "Cost", 1])]
            if is_fixed:
                out += [(cmd, [key, W, 5, *opts], "ERR option 'ALIGN' given more than once")
                        for opts in (["ALIGN", "align"], ["ALIGN", "COST", 2, "ALIGN"])]
                out += [(cmd, [key, W, 5, *opts], COST_NEEDS_VALUE) for opts in (["ALIGN", "COST"],)]
                out += [(cmd, [key, W, 5, "COST", "ALIGN"], COST_ERR)]
                out += [(cmd, [key, W, 5, "ALIGNED"], "ERR unknown option 'ALIGNED'")]
                out += [(cmd, [key, W, 5, 2 * W, 9], "ERR WINLIMIT.FIXED takes one window_ms limit pair")]
            else:
                out += [(cmd, [key, W, 5, *opts], f"ERR unknown option '{bad}'")
                        for opts, bad in [(["ALIGN"], "ALIGN"), (["align"], "align"),
                                          (["COST", 2, "ALIGN"], "ALIGN")]]
                out += [(cmd, [key, *args], expected) for args, expected in SEVERAL_WINDOWS + BUCKET]
            out += [(cmd, [key, W, 5, "COST", 1, 2 * W, 3], PAIR_AFTER_OPTIONS.format(2 * W)),
                    (cmd, [key, W, 5, 2 * W], NO_LIMIT.format(2 * W)),
                    (cmd, [key, W, 5, 2 * W, "COST", 1], NO_LIMIT.format(2 * W))]
        if is_fixed:
            out += [(cmd, [key, W, 5], WRONGTYPE) for key in ("list", "hash", "set", "z")]
            out += [(cmd, [key, W, 5], NOT_INTEGER) for key in ("str", "neg", "float", "big", "empty")]
        else:
            out += [(cmd, [key, W, 5], WRONGTYPE)
                    for key in ("list", "hash", "set", "str", "n", "neg", "c")]
    return out


REFUND_ERR = "ERR REFUND must be a positive integer"
BLOCK_ERR = "ERR BLOCK must be an integer between 1 and 1000000000000"


def refund_block_cases():
    """REFUND and BLOCK on every algorithm: bad values, refused combinations, _RO."""
    out = []
    for cmd, args in [("slide", [W, 5]), ("fixed", [W, 5]), ("gcra", [W, 5]), ("slide", [W, 5, "BUCKET", 10])]:
        stored = {"slide": ["z"], "fixed": ["c"]}.get(cmd, []) if len(args) == 2 else []
        for key in ["new", *stored]:
            out += [(cmd, [key, *args, "REFUND", n], REFUND_ERR) for n in BAD_COSTS]
            out += [(cmd, [key, *args, "BLOCK", ms], BLOCK_ERR)
                    for ms in ["0", "-1", "1000000000001", "abc", "1.5", ""]]
            out += [(cmd, [key, *args, *opts], expected) for opts, expected in [
                (["REFUND"], "ERR REFUND needs a value"),
                (["BLOCK"], "ERR BLOCK needs a value"),
                (["REFUND", 1, "refund", 1], "ERR option 'REFUND' given more than once"),
                (["BLOCK", 1, "block", 1], "ERR option 'BLOCK' given more than once"),
                (["REFUND", 1, "COST", 1], "ERR REFUND cannot be combined with COST"),
                (["COST", 2, "REFUND", 1], "ERR REFUND cannot be combined with COST"),
                (["REFUND", 1, "BLOCK", 10], "ERR REFUND cannot be combined with BLOCK"),
            ]]
            out += [(cmd + "_ro", [key, *args, name, 1], f"ERR {name} is an option of the recording commands, not of _RO")
                    for name in ("REFUND", "BLOCK")]
    return out


@pytest.mark.parametrize("cmd,args,expected", [
    pytest.param(cmd, args, expected, id=" ".join(map(repr, [cmd, *args])))
    for cmd, args, expected in cases() + refund_block_cases()])
def test_bad_input_gets_exact_error_and_changes_nothing(server, r, cmd, args, expected):
    populate(r)
    before = snapshot(r, dump=True)
    error = error_of(server.port, "WINLIMIT." + cmd.upper(), *args)
    if REDIS_62 and expected.startswith("ERR wrong number"):
        error = "ERR " + error[4:].lower()  # Redis 6.2 names the command as the client typed it
    assert error == expected
    assert snapshot(r, dump=True) == before


@pytest.mark.parametrize("cmd", COMMANDS)
def test_extreme_valid_arguments_are_accepted(r, cmd):
    top = 10**12 if cmd.startswith("fixed") else 10000
    assert call(r, cmd, "k1", 1, top)[:2] == (1, top)
    assert call(r, cmd, "k2", 1000000000000, 0)[:2] == (0, 0)
    assert call(r, cmd, "k3", 1000000000000, top, "COST", 7)[:2] == (1, top)
