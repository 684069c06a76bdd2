"""The memory limiter against every bound and error text of the module's parsers
(clients/spec/limits.json, generated from the Rust core): each case on a fresh key. The Node
client's memory limiter runs the same file (clients/node/test/spec-limits.test.mjs), the
module and the library tests/test_limits.py."""

import pytest
import redis

import winlimit.memory

from shared_spec import ids, load

SPEC = load("limits.json")


@pytest.mark.parametrize("case", SPEC["cases"], ids=ids(SPEC["cases"]))
def test_the_memory_limiter_bounds_and_words_as_the_module(case):
    limiter = winlimit.memory.Limiter(clock=lambda: 1_700_000_000_000)
    try:
        limiter.execute_command(case["command"], "key", *case["args"])
        error = None
    except redis.ResponseError as e:
        # redis-py drops the leading "ERR " of the module's errors; the memory limiter too.
        error = "ERR " + str(e)
    assert error == case["error"], f"{case['command']} {case['args']}"
