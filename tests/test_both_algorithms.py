"""What WINLIMIT.SLIDE and WINLIMIT.FIXED promise alike.

Timing is shown on short windows; waits come from the replies' own timing fields
(retry_after_ms, reset_after_ms), and sleeping a little longer than asked is fine, since each
promise holds "at or after".
"""

import time

import pytest

from kit.commands import call
from kit.keyspace import expiry_slack


ALGORITHMS = ["slide", "fixed"]
W = 60000  # long window: nothing expires during the edge-case tests


def units_stored(r, algorithm, key):
    return r.zcard(key) if algorithm == "slide" else int(r.get(key) or 0)


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_a_retry_exactly_at_retry_after_is_allowed(r, algorithm):
    window = 500
    call(r, algorithm, "k", window, 2)
    call(r, algorithm, "k", window, 2)
    rep = call(r, algorithm, "k", window, 2)
    assert rep.allowed == 0 and rep.retry_after > 0
    time.sleep(rep.retry_after / 1000)
    assert call(r, algorithm, "k", window, 2).allowed == 1


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_the_key_vanishes_after_an_idle_window(r, algorithm):
    window = 300
    rep = call(r, algorithm, "k", window, 5)
    slack = expiry_slack(window) if algorithm == "slide" else 0
    assert 0 < r.pttl("k") <= window + slack
    time.sleep((rep.reset_after + slack) / 1000 + 0.01)
    assert r.exists("k") == 0


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_the_full_limit_is_available_again_after_the_window(r, algorithm):
    window = 300
    for _ in range(3):
        rep = call(r, algorithm, "k", window, 3)
    time.sleep(rep.reset_after / 1000 + 0.01)
    assert call(r, algorithm, "k", window, 3) == (1, 3, 2, 0, window)
    assert units_stored(r, algorithm, "k") == 1


# ---- edge cases ----

@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_cost_above_limit_can_never_succeed(r, algorithm):
    assert call(r, algorithm, "k", W, 3, "COST", 4) == (0, 3, 3, -1, 0)
    assert r.exists("k") == 0
    call(r, algorithm, "k", W, 3)
    rep = call(r, algorithm, "k", W, 3, "COST", 4)
    assert (rep.allowed, rep.remaining, rep.retry_after) == (0, 2, -1)
    assert 0 < rep.reset_after <= W


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_limit_zero_rejects_everything_and_records_nothing(r, algorithm):
    assert call(r, algorithm, "k", W, 0) == (0, 0, 0, -1, 0)
    assert r.exists("k") == 0
