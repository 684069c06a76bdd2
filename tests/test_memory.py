"""Calls do not leak: the module's memory is Redis's (INFO used_memory counts it).

Each scenario warms up first (Redis grows per-command latency histograms and client
buffers lazily), then repeats the same calls on keys that no longer grow. A leak of even
16 bytes per call would add 16 * CALLS bytes; the allowance is far below that.
"""

import pytest

CALLS = 20_000
ALLOWANCE = 64 * 1024  # bytes; a 16-byte-per-call leak would be 320 KB


def used_memory(r):
    return r.info("memory")["used_memory"]


def run(r, args, calls):
    pipe = r.pipeline(transaction=False)
    for _ in range(calls):
        pipe.execute_command(*args)
    pipe.execute(raise_on_error=False)


SCENARIOS = {
    "slide accepted and rejected": ("WINLIMIT.SLIDE", "s", 60000, 50),
    "slide with cost": ("WINLIMIT.SLIDE", "s", 60000, 50, "COST", 3),
    "slide trimming every call": ("WINLIMIT.SLIDE", "s", 1, 5, "COST", 2),
    "slide_ro": ("WINLIMIT.SLIDE_RO", "s", 60000, 50),
    "fixed accepted and rejected": ("WINLIMIT.FIXED", "f", 60000, 50),
    "fixed aligned": ("WINLIMIT.FIXED", "f", 60000, 50, "ALIGN"),
    "fixed_ro": ("WINLIMIT.FIXED_RO", "f", 60000, 50),
    "argument error": ("WINLIMIT.SLIDE", "s", 60000, "many"),
    "wrong type": ("WINLIMIT.FIXED", "s", 60000, 50),
}


@pytest.mark.parametrize("args", SCENARIOS.values(), ids=SCENARIOS.keys())
def test_repeated_calls_do_not_grow_memory(r, args):
    r.execute_command("WINLIMIT.SLIDE", "s", 60000, 50)  # "wrong type" needs s to be a log
    run(r, args, CALLS)
    before = used_memory(r)
    run(r, args, CALLS)
    assert used_memory(r) - before < ALLOWANCE
