"""No single call at default settings takes more than 10 ms of server time, adversarial
calls included (server-side durations from SLOWLOG)."""

import time

import pytest

from harness import call, server_ms

BOUND_US = 10_000


@pytest.fixture
def timed(r):
    """Runs a call and returns its reply and its server-side duration in µs. Durations are
    the call's own cost; a busy machine only adds to them, so each measurement is the least
    of three runs of the same call on the same prepared state (a DUMP restored before each)."""
    r.config_set("slowlog-log-slower-than", 0)
    r.config_set("slowlog-max-len", 1024)

    def duration_of(*command):
        key = command[1]
        saved = r.dump(key)
        best = None
        for _ in range(3):
            r.delete(key)
            if saved is not None:
                r.restore(key, 0, saved)
            r.slowlog_reset()
            reply = r.execute_command(*command)
            [entry] = [e for e in r.slowlog_get(1024) if e["command"].split()[0].upper() == command[0].encode()]
            best = entry["duration"] if best is None else min(best, entry["duration"])
        return reply, best

    yield duration_of
    r.config_set("slowlog-log-slower-than", 10000)


def largest_limit(r):
    try:
        call(r, "slide", "probe", 1000, 10**12)
    except Exception as e:  # the error names the bound that applies
        return int(str(e).rsplit(" ", 1)[1])
    raise AssertionError("a limit of 10^12 was accepted by default")


def test_the_largest_cost_on_a_fresh_exact_log(r, timed):
    top = largest_limit(r)
    reply, us = timed("WINLIMIT.SLIDE", "k", 60000, top, "COST", top)
    print(f"worst case: COST {top} on a fresh log: {us} us")
    assert reply[0] == 1 and us < BOUND_US


def test_the_first_call_after_a_full_log_left_the_window(r, timed):
    top = largest_limit(r)
    window = 300
    call(r, "slide", "k", window, top, "COST", top)
    time.sleep(window / 1000 + 0.05)
    reply, us = timed("WINLIMIT.SLIDE", "k", window, top)
    print(f"worst case: first call after {top} entries left the window: {us} us")
    assert reply[0] == 1 and us < BOUND_US


def test_a_rejected_large_cost_on_a_full_log_of_distinct_times(r, timed):
    top = largest_limit(r)
    now = server_ms(r)
    # A full log whose entries are all at different times, as a steady load leaves it.
    pipe = r.pipeline(transaction=False)
    for start in range(0, top, 1000):
        pipe.zadd("k", {str(1_000_000_000 + i): now - top + i for i in range(start, min(start + 1000, top))})
    pipe.execute()
    reply, us = timed("WINLIMIT.SLIDE", "k", 60000, top, "COST", top // 2)
    print(f"worst case: rejected COST {top // 2} on a full log of {top}: {us} us, retry {reply[3]} ms")
    assert reply[0] == 0 and reply[3] > 0 and us < BOUND_US


def test_bucket_and_gcra_with_huge_limits_and_costs(r, timed):
    reply, bucket_us = timed("WINLIMIT.SLIDE", "b", 60000, 10**12, "BUCKET", 60, "COST", 10**12)
    assert reply[0] == 1
    reply, gcra_us = timed("WINLIMIT.GCRA", "g", 10**12, 10**12, "COST", 10**12)
    assert reply[0] == 1
    print(f"worst case: BUCKET COST 10^12: {bucket_us} us, GCRA COST 10^12: {gcra_us} us")
    assert bucket_us < BOUND_US and gcra_us < BOUND_US
