"""wait=: sleep retry_after_ms and call again until accepted, never past the deadline; sync
and asyncio alike (the `limiter` fixture runs each test over both)."""

import time

import pytest


def ms_since(started):
    return (time.monotonic() - started) * 1000


def test_wait_returns_accepted_after_about_retry_after(limiter):
    limiter.gcra("k", 300, 1)
    peeked_at = time.monotonic()
    retry = limiter.gcra("k", 300, 1, peek=True).retry_after_ms
    assert retry > 0
    started = time.monotonic()
    decision = limiter.gcra("k", 300, 1, wait=5)
    # It slept what the server said at the call's start: at most the peeked retry, at least
    # that less the time gone by since the peek.
    assert decision.allowed
    assert retry - ms_since(peeked_at) - 1 <= decision.waited_ms <= ms_since(started)
    assert decision.waited_ms <= retry + 1000


def test_an_accepted_call_did_not_wait(limiter):
    decision = limiter.slide("k", 60_000, 3, wait=5)
    assert decision.allowed and decision.waited_ms == 0


def test_wait_gives_up_at_once_when_the_retry_ends_after_the_deadline(limiter):
    limiter.slide("k", 60_000, 1)
    started = time.monotonic()
    decision = limiter.slide("k", 60_000, 1, wait=1.0)
    assert not decision.allowed and decision.retry_after_ms > 1000
    assert decision.waited_ms == 0 and ms_since(started) < 1000


def test_a_cost_above_the_limit_returns_at_once(limiter):
    started = time.monotonic()
    decision = limiter.gcra("k", 1000, 2, cost=3, wait=5)
    assert not decision.allowed and decision.retry_after_ms == -1
    assert decision.waited_ms == 0 and ms_since(started) < 1000


@pytest.mark.parametrize("wait, error", [(0, ValueError), (-1.5, ValueError), ("1", TypeError),
                                         (True, TypeError), (float("nan"), ValueError)])
def test_a_wait_that_is_not_seconds_above_zero_is_refused(limiter, wait, error):
    with pytest.raises(error):
        limiter.slide("k", 60_000, 3, wait=wait)


def test_peek_with_wait_is_refused(limiter):
    with pytest.raises(ValueError, match="peek"):
        limiter.fixed("k", 60_000, 3, peek=True, wait=1)
