"""The library makes no noise the operator watches: no call of any algorithm, accepted,
rejected, refunding, blocking or reading, on a key of the right type, adds to INFO errorstats,
total_error_replies or the slow log (its default threshold, 10 ms). Each kind is called 1,000
times (pipelined) and the counters are read around the calls. Redis 6.0 has no errorstats:
there the slow log alone is read.

The slow log times a call by the wall clock, so on a loaded machine a call preempted for
10 ms enters it now and then, whatever it does (2% of the calls with three callgrind runs and
two suites on this machine's two cores). A call slow by itself enters it every time its state
comes round: at most SLOW_SHARE of the calls may enter it. Errors must stay at zero."""

import pytest

from kit import editions

pytestmark = pytest.mark.skipif(not editions.LIBRARY, reason="library only: the module replies no error it does not give")

CALLS = 1000
SLOW_SHARE = 1 / 10

# Each kind: the calls it repeats on its own key (round robin), short windows so that the
# calls run through accepted, rejected, expired and trimmed states.
KINDS = {
    "slide": [("WINLIMIT.SLIDE", 20, 5)],
    "slide several windows": [("WINLIMIT.SLIDE", 5, 2, 40, 6, "COST", 1)],
    "slide refund": [("WINLIMIT.SLIDE", 30, 4)] * 3 + [("WINLIMIT.SLIDE", 30, 4, "REFUND", 1)],
    "slide block": [("WINLIMIT.SLIDE", 10, 3, "BLOCK", 5)],
    "slide_ro": [("WINLIMIT.SLIDE", 20, 5), ("WINLIMIT.SLIDE_RO", 20, 5)],
    "slide bucket": [("WINLIMIT.SLIDE", 40, 7, "BUCKET", 2)],
    "slide bucket refund": [("WINLIMIT.SLIDE", 40, 7, "BUCKET", 2)] * 3 + [("WINLIMIT.SLIDE", 40, 7, "REFUND", 1, "BUCKET", 2)],
    "slide bucket block": [("WINLIMIT.SLIDE", 40, 7, "BUCKET", 4, "BLOCK", 6)],
    "fixed": [("WINLIMIT.FIXED", 20, 5)],
    "fixed align": [("WINLIMIT.FIXED", 20, 5, "ALIGN")],
    "fixed refund": [("WINLIMIT.FIXED", 30, 4)] * 3 + [("WINLIMIT.FIXED", 30, 4, "REFUND", 1)],
    "fixed block": [("WINLIMIT.FIXED", 10, 3, "BLOCK", 5)],
    "fixed_ro": [("WINLIMIT.FIXED", 20, 5), ("WINLIMIT.FIXED_RO", 20, 5)],
    "gcra": [("WINLIMIT.GCRA", 20, 5, "BURST", 3)],
    "gcra refund": [("WINLIMIT.GCRA", 30, 4)] * 3 + [("WINLIMIT.GCRA", 30, 4, "REFUND", 1)],
    "gcra block": [("WINLIMIT.GCRA", 10, 3, "BLOCK", 5)],
    "gcra_ro": [("WINLIMIT.GCRA", 20, 5), ("WINLIMIT.GCRA_RO", 20, 5, "COST", 2)],
}


def errors(r):
    """Every errorstats field and total_error_replies (both absent on 6.0)."""
    info = r.info("everything")
    stats = {name: fields for name, fields in info.items() if name.startswith("errorstat_")}
    return stats, info.get("total_error_replies")


def run_round(r, shapes):
    """CALLS calls of one kind, pipelined; every reply a verdict, some accepted, some not."""
    pipe = r.pipeline(transaction=False)
    for i in range(CALLS):
        name, *args = shapes[i % len(shapes)]
        pipe.execute_command(name, "quiet", *args)
    replies = pipe.execute(raise_on_error=False)
    assert [x for x in replies if isinstance(x, Exception)] == []
    assert any(reply[0] == 1 for reply in replies) and any(reply[0] == 0 for reply in replies)


@pytest.mark.parametrize("kind", KINDS)
def test_calls_on_a_key_of_the_right_type_add_no_error(r, kind):
    before = errors(r)
    run_round(r, KINDS[kind])
    assert errors(r) == before


@pytest.mark.parametrize("kind", KINDS)
def test_calls_are_not_slow_enough_for_the_slow_log(r, kind):
    r.config_set("slowlog-log-slower-than", 10000)  # the default
    r.config_set("slowlog-max-len", CALLS)
    r.slowlog_reset()
    run_round(r, KINDS[kind])
    # The calls themselves (a 6.x script's inner commands are logged on their own too).
    entries = [e for e in r.slowlog_get(CALLS) if e["command"].split()[0].upper() in (b"FCALL", b"FCALL_RO", b"EVALSHA")]
    assert len(entries) <= CALLS * SLOW_SHARE, entries[:5]
