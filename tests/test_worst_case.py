"""No single call at default settings stalls the server, adversarial calls included
(the server's CPU time around each call, from INFO cpu).

The 10 ms target itself is a benchmark figure (`make bench`, "worst case"): on a shared
2-core machine a timed test at that bound fails on load alone (11 ms was seen with the
other core busy). The suite asserts the replies and a bound ten times wider, which only a
change in the work a call does (a walk that grew with the log, say) can cross."""

import pytest

from kit import editions
from kit.server import REDIS_62
from kit.commands import call
from kit.keyspace import server_ms
from kit.support import wait_until


# Ten times the benchmark's 10 ms target: a stall, not a slow machine.
BOUND_US = 100_000
RUNS = 20


@pytest.fixture
def timed(r):
    """Runs a call and returns its reply and the server's CPU time over it in µs (INFO cpu
    before and after; the second INFO's own few µs included). CPU time, not SLOWLOG's wall
    time: a machine loaded with other work makes the server wait for a core, which wall time
    counts (145 ms was seen, the least of three runs, at load 10 on 2 cores) and CPU time does
    not, while more work in the call itself (a walk that grew with the log, say) adds to
    both. Each measurement is still the least of up to RUNS runs of the same call on the same
    prepared state (a DUMP restored before each), ended by the first under BOUND_US."""

    def duration_of(*command):
        key = command[1]
        saved, ttl = r.dump(key), r.pttl(key)
        best = None
        for _ in range(RUNS):
            if best is not None and best < BOUND_US:
                break
            r.delete(key)
            if saved is not None:
                r.restore(key, max(ttl, 0), saved)
            before = server_cpu_us(r)
            reply = r.execute_command(*command)
            spent = server_cpu_us(r) - before
            best = spent if best is None else min(best, spent)
        return reply, best

    return duration_of


def server_cpu_us(r):
    cpu = r.info("cpu")
    return round((cpu["used_cpu_user"] + cpu["used_cpu_sys"]) * 1e6)


def largest_limit(r):
    """The largest exact-log limit at the defaults: winlimit.max-limit, as the error for a
    larger one names it (and as CONFIG GET reads it, where module configs exist)."""
    try:
        call(r, "slide", "probe", 1000, 10**12)
    except Exception as e:  # the error names the bound that applies
        top = int(str(e).rsplit(" ", 1)[1])
    else:
        raise AssertionError("a limit of 10^12 was accepted by default")
    if not REDIS_62 and not editions.LIBRARY:  # the module's setting; the library's cap is fixed
        assert int(r.config_get("winlimit.max-limit")["winlimit.max-limit"]) == top
    return top


def test_the_largest_cost_on_a_fresh_exact_log(r, timed):
    top = largest_limit(r)
    reply, us = timed("WINLIMIT.SLIDE", "k", 60000, top, "COST", top)
    print(f"worst case: COST {top} on a fresh log: {us} us")
    assert reply[0] == 1 and us < BOUND_US


def test_the_first_call_after_a_full_log_left_the_window(r, timed):
    """A full log whose every entry has left the window, on a key that has not expired yet
    (its expiry has a slack): the call must drop it all. The log is saved right after it is
    written and restored once the window has passed, so no expiry races the measurement."""
    top = largest_limit(r)
    window = 1000
    call(r, "slide", "k", window, top, "COST", top)
    saved, [(_, newest)] = r.dump("k"), r.zrange("k", -1, -1, withscores=True)
    wait_until(lambda: server_ms(r) > newest + window, what="the log to leave the window")
    r.delete("k")
    r.restore("k", 60_000, saved)
    assert r.zcard("k") == top
    reply, us = timed("WINLIMIT.SLIDE", "k", window, top)
    print(f"worst case: first call after {top} entries left the window: {us} us")
    assert reply[0] == 1 and reply[2] == top - 1 and us < BOUND_US
    assert r.zcard("k") == 1


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


def test_bucket_with_a_huge_limit_and_cost(r, timed):
    reply, bucket_us = timed("WINLIMIT.SLIDE", "b", 60000, 10**12, "BUCKET", 60, "COST", 10**12)
    print(f"worst case: BUCKET COST 10^12: {bucket_us} us")
    assert reply[0] == 1 and bucket_us < BOUND_US


@editions.module_only("beyond the library's exact GCRA range (README: period_ms up to 30 days, BURST up to 10^6)")
def test_gcra_with_a_huge_limit_and_cost(r, timed):
    reply, gcra_us = timed("WINLIMIT.GCRA", "g", 10**12, 10**12, "COST", 10**12)
    print(f"worst case: GCRA COST 10^12: {gcra_us} us")
    assert reply[0] == 1 and gcra_us < BOUND_US
