"""Every bad input gets its exact error text and leaves the keyspace unchanged."""

import uuid

import pytest

from harness import call, error_of, server_ms, snapshot

W = 1000
COMMANDS = ["slide", "fixed", "slide_ro", "fixed_ro"]

WINDOW_ERR = "ERR window_ms must be an integer between 1 and 1000000000000"
LIMIT_ERR = "ERR limit must be an integer between 0 and 1000000"
COST_ERR = "ERR COST must be a positive integer"
COST_NEEDS_VALUE = "ERR COST needs a value"
WRONGTYPE = "WRONGTYPE Operation against a key holding the wrong kind of value"
NOT_INTEGER = "ERR value is not an integer or out of range"

BAD_WINDOWS = ["0", "-1", "1000000000001", "99999999999999999999", "abc", "1.5", "1e3", ""]
BAD_LIMITS = ["-1", "1000001", "99999999999999999999", "abc", "2.5", ""]
BAD_COSTS = ["0", "-1", "99999999999999999999", "abc", "1.5", ""]


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
            out += [(cmd, [key, W, lim], LIMIT_ERR) for lim in BAD_LIMITS]
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
            else:
                out += [(cmd, [key, W, 5, *opts], f"ERR unknown option '{bad}'")
                        for opts, bad in [(["ALIGN"], "ALIGN"), (["align"], "align"),
                                          (["COST", 2, "ALIGN"], "ALIGN")]]
        if is_fixed:
            out += [(cmd, [key, W, 5], WRONGTYPE) for key in ("list", "hash", "set", "z")]
            out += [(cmd, [key, W, 5], NOT_INTEGER) for key in ("str", "neg", "float", "big", "empty")]
        else:
            out += [(cmd, [key, W, 5], WRONGTYPE)
                    for key in ("list", "hash", "set", "str", "n", "neg", "c")]
    return out


@pytest.mark.parametrize("cmd,args,expected", [
    pytest.param(cmd, args, expected, id=" ".join(map(repr, [cmd, *args])))
    for cmd, args, expected in cases()])
def test_bad_input_gets_exact_error_and_changes_nothing(server, r, cmd, args, expected):
    populate(r)
    before = snapshot(r, dump=True)
    assert error_of(server.port, "WINLIMIT." + cmd.upper(), *args) == expected
    assert snapshot(r, dump=True) == before


@pytest.mark.parametrize("cmd", COMMANDS)
def test_extreme_valid_arguments_are_accepted(r, cmd):
    assert call(r, cmd, "k1", 1, 1000000)[:2] == (1, 1000000)
    assert call(r, cmd, "k2", 1000000000000, 0)[:2] == (0, 0)
    assert call(r, cmd, "k3", 1000000000000, 1000000, "COST", 7)[:2] == (1, 1000000)
