"""BLOCK ms: a recording call rejected with a wait blocks the key for ms, on the server's
clock; while blocked every recording call is rejected and records nothing."""

import time

import pytest

from kit.commands import call
from kit.keyspace import pexpiretime, server_ms


MS = 600  # the block: short, so a test polls its end

# name -> (command, arguments after the key): 2 units per 300 ms (GCRA: one unit per
# 150 ms, 2 at once), shorter than the block, so the block outlasts the algorithm's own wait.
ALGORITHMS = {
    "log": ("slide", (300, 2)),
    "bucket": ("slide", (300, 2, "BUCKET", 100)),
    "fixed": ("fixed", (300, 2)),
    "gcra": ("gcra", (300, 2)),
}


def record(r, algorithm, *extra, key="k"):
    command, args = ALGORITHMS[algorithm]
    return call(r, command, key, *args, *extra)


def peek(r, algorithm):
    command, args = ALGORITHMS[algorithm]
    return call(r, command + "_ro", "k", *args)


def block(r, algorithm):
    """Fills the key and blocks it; returns the server's clock before and after the
    blocking call, which bound the block's start."""
    assert [record(r, algorithm).allowed for _ in range(2)] == [1, 1]
    t0 = server_ms(r)
    reply = record(r, algorithm, "BLOCK", MS)
    t1 = server_ms(r)
    assert (reply.allowed, reply.remaining, reply.retry_after) == (0, 0, MS)
    return t0, t1


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_a_block_holds_for_ms_and_retries_do_not_extend_it(r, algorithm):
    t0, t1 = block(r, algorithm)
    while True:
        before = server_ms(r)
        reply = record(r, algorithm, "BLOCK", MS)
        after = server_ms(r)
        if reply.allowed:
            break
        # Rejected at a moment in [before, after], inside the block, whose end is at most
        # t1 + MS however often it is retried; the wait points at that end.
        assert before < t1 + MS
        assert (reply.remaining, reply.limit) == (0, 2)
        assert t0 + MS <= after + reply.retry_after and before + reply.retry_after <= t1 + MS
        time.sleep(0.02)
    assert after >= t0 + MS, "accepted only once the block has ended"


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_every_recording_call_is_rejected_during_a_block(r, algorithm):
    block(r, algorithm)
    before = r.dump("k")
    # A cost above the limit too: during a block it waits for the block, not -1.
    for extra in [(), ("BLOCK", 5), ("COST", 1), ("COST", 3)]:
        reply = record(r, algorithm, *extra)
        assert (reply.allowed, reply.remaining) == (0, 0)
        assert 0 < reply.retry_after <= MS
    assert r.dump("k") == before, "nothing recorded"


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_the_peek_reports_the_block(r, algorithm):
    t0, t1 = block(r, algorithm)
    before = server_ms(r)
    reply = peek(r, algorithm)
    assert (reply.allowed, reply.remaining) == (0, 0)
    assert before + reply.retry_after <= t1 + MS and reply.retry_after >= reply.reset_after - MS


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_del_lifts_the_block(r, algorithm):
    block(r, algorithm)
    r.delete("k")
    assert record(r, algorithm).allowed == 1


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_a_refund_never_lifts_a_block(r, algorithm):
    block(r, algorithm)
    before = r.dump("k")
    reply = record(r, algorithm, "REFUND", 5)
    assert (reply.allowed, reply.remaining) == (0, 0)
    assert r.dump("k") == before


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_a_cost_above_the_limit_blocks_nothing(r, algorithm):
    reply = record(r, algorithm, "COST", 3, "BLOCK", MS)
    assert (reply.allowed, reply.retry_after) == (0, -1)
    assert not r.exists("k")


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_accepted_calls_ignore_block(r, algorithm):
    # reset_after may differ: the two calls can fall in different ms (or buckets).
    with_block, without = record(r, algorithm, "BLOCK", MS), record(r, algorithm, key="other")
    assert with_block[:4] == without[:4] == (1, 2, 1, 0)
    assert r.type("k") == r.type("other")


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_the_key_lives_until_the_block_ends(r, algorithm):
    t0, t1 = block(r, algorithm)
    assert pexpiretime(r, "k") >= t0 + MS


def wait_for_the_block_to_end(r, algorithm):
    while not peek(r, algorithm).allowed:
        time.sleep(0.02)


@pytest.mark.parametrize("algorithm", ["log", "bucket", "fixed"])
def test_after_a_block_longer_than_the_window_the_whole_limit_is_back(r, algorithm):
    block(r, algorithm)
    wait_for_the_block_to_end(r, algorithm)
    assert [record(r, algorithm).allowed for _ in range(3)] == [1, 1, 0]


def test_after_a_gcra_block_one_unit_is_back_and_the_rest_refills(r):
    block(r, "gcra")
    wait_for_the_block_to_end(r, "gcra")
    assert record(r, "gcra").allowed == 1
    reply = record(r, "gcra")
    assert reply.allowed == 0 and 0 < reply.retry_after <= 150


def test_an_ended_blocks_marker_goes_with_the_next_write(r):
    call(r, "slide", "k", 60000, 2)
    assert call(r, "slide", "k", 60000, 2, "COST", 2, "BLOCK", 200).allowed == 0
    assert len(r.zrangebyscore("k", "+inf", "+inf")) == 1, "the marker, scored +inf"
    while not call(r, "slide_ro", "k", 60000, 2).allowed:
        time.sleep(0.02)
    assert call(r, "slide", "k", 60000, 2).allowed == 1
    assert r.zrangebyscore("k", "+inf", "+inf") == [] and r.zcard("k") == 2
