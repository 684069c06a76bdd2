"""The memory limiter against the module's own decisions (clients/spec/decisions.json,
generated from the Rust core): every call of every case, at the case's times. The Node
client's memory limiter runs the same file (clients/node/test/spec-decisions.test.mjs)."""

import pytest
import redis

import winlimit.memory

from shared_spec import ids, load
from test_spec_cache import Clock

SPEC = load("decisions.json")


def answer(limiter, args):
    try:
        return {"reply": limiter.execute_command(args[0], "key", *args[1:])}
    except redis.ResponseError as e:
        # redis-py drops the leading "ERR " of the module's errors; the memory limiter too.
        return {"error": "ERR " + str(e)}


@pytest.mark.parametrize("case", SPEC["cases"], ids=ids(SPEC["cases"]))
def test_the_memory_limiter_decides_as_the_module(case):
    clock = Clock()
    limiter = winlimit.memory.Limiter(clock=clock)
    for i, call in enumerate(case["calls"]):
        clock.now = call["now"]
        expected = {k: call[k] for k in ("reply", "error") if k in call}
        assert answer(limiter, call["args"]) == expected, f"call {i}: {call['args']} at {call['now']}"
