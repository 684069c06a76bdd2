"""refund= and block_ms= on every limiter method, against a real redis-server with the module,
over the sync and the asyncio client (`flavour`): the option reaches the server as REFUND /
BLOCK and the decision is the server's."""


import pytest
import redis

from kit.keyspace import pexpiretime, server_ms

W = 60_000
BLOCK = 900_000

# Each method's (call, peek) with a limit of 3 per W: the same key, the same arguments.
METHODS = {
    "slide": lambda lim, **kw: lim.slide("k", W, 3, **kw),
    "slide-bucket": lambda lim, **kw: lim.slide("k", W, 3, bucket=1000, **kw),
    "fixed": lambda lim, **kw: lim.fixed("k", W, 3, **kw),
    "gcra": lambda lim, **kw: lim.gcra("k", W, 3, **kw),
}


@pytest.fixture(params=list(METHODS))
def call(request):
    return METHODS[request.param]


def test_refund_gives_the_newest_units_back(limiter, call):
    for _ in range(3):
        call(limiter)
    d = call(limiter, refund=2)
    assert (d.allowed, d.remaining) == (True, 2)
    assert call(limiter, peek=True).remaining == 2


def test_refund_never_gives_back_more_than_the_key_holds(limiter, call):
    call(limiter)
    assert call(limiter, refund=5).remaining == 3
    assert call(limiter, cost=3).allowed
    assert not call(limiter).allowed


def test_refund_replies_as_the_peek_that_follows_it(limiter, call):
    call(limiter, cost=2)
    refunded = call(limiter, refund=1)
    peeked = call(limiter, peek=True)
    assert (refunded.allowed, refunded.remaining, refunded.limit) == (peeked.allowed, peeked.remaining, peeked.limit)


def test_refund_on_a_missing_key_creates_nothing(limiter, r, call):
    assert call(limiter, refund=1).remaining == 3
    assert r.exists("k") == 0


def test_fixed_refund_keeps_the_windows_expiry(limiter, r):
    limiter.fixed("k", W, 3, cost=2)
    expiry = pexpiretime(r, "k")
    limiter.fixed("k", W, 3, refund=1)
    assert (int(r.get("k")), pexpiretime(r, "k")) == (1, expiry)


def test_block_ms_blocks_the_key_for_that_long_once_rejected(limiter, r, call):
    for _ in range(3):
        assert call(limiter, block_ms=BLOCK).allowed
    before = server_ms(r)
    d = call(limiter, block_ms=BLOCK)
    after = server_ms(r)
    assert (d.allowed, d.remaining) == (False, 0)
    # The block starts at the rejection, between before and after, and lasts BLOCK ms.
    assert BLOCK - (after - before) <= d.retry_after_ms <= BLOCK


def test_a_blocked_key_refuses_calls_without_block_ms_and_peeks_report_it(limiter, call):
    for _ in range(4):
        call(limiter, block_ms=BLOCK)
    blocked, peeked = call(limiter), call(limiter, peek=True)
    assert not blocked.allowed and not peeked.allowed
    # Far beyond what the window alone would answer (at most W): the block's time left.
    assert blocked.retry_after_ms > W and peeked.retry_after_ms > W
    assert peeked.retry_after_ms <= blocked.retry_after_ms <= BLOCK


def test_a_rejection_during_a_block_does_not_extend_it(limiter, call):
    for _ in range(4):
        first = call(limiter, block_ms=BLOCK)
    again = call(limiter, block_ms=BLOCK)
    assert again.retry_after_ms <= first.retry_after_ms


def test_a_refund_does_not_lift_a_block(limiter, call):
    for _ in range(4):
        call(limiter, block_ms=BLOCK)
    d = call(limiter, refund=3)
    assert (d.allowed, d.remaining) == (False, 0)
    assert d.retry_after_ms > W


def test_reset_lifts_a_block(limiter, call):
    for _ in range(4):
        call(limiter, block_ms=BLOCK)
    assert limiter.reset("k")
    assert call(limiter).allowed


def test_block_ms_without_a_rejection_changes_nothing(limiter, call):
    d = call(limiter, block_ms=BLOCK)
    assert (d.allowed, d.remaining) == (True, 2)


@pytest.mark.parametrize("options, error", [
    ({"refund": 1, "cost": 2}, "REFUND cannot be combined with COST"),
    ({"refund": 1, "block_ms": BLOCK}, "REFUND cannot be combined with BLOCK"),
    ({"refund": 0}, "REFUND must be a positive integer"),
    ({"block_ms": 0}, "BLOCK must be an integer between 1 and 1000000000000"),
    ({"refund": 1, "peek": True}, "REFUND is an option of the recording commands, not of _RO"),
    ({"block_ms": 1, "peek": True}, "BLOCK is an option of the recording commands, not of _RO"),
], ids=["refund-cost", "refund-block", "refund-0", "block-0", "refund-peek", "block-peek"])
def test_the_server_refuses_what_it_refuses_in_its_own_words(limiter, call, options, error):
    with pytest.raises(redis.ResponseError, match=error):
        call(limiter, **options)


@pytest.mark.parametrize("options", [{"refund": "1"}, {"refund": 1.0}, {"block_ms": True}, {"block_ms": "5"}],
                         ids=["refund-str", "refund-float", "block-bool", "block-str"])
def test_a_refund_or_block_that_is_not_an_int_is_refused_before_sending(limiter, r, call, options):
    with pytest.raises(TypeError, match="must be an int"):
        call(limiter, **options)
    assert r.exists("k") == 0


def test_wait_with_refund_is_refused(limiter, call):
    with pytest.raises(ValueError, match="nothing to wait for"):
        call(limiter, refund=1, wait=1.0)


def test_a_refund_forgets_the_keys_cached_rejections(make_limiter, r):
    limiter = make_limiter(cache_rejections=True)
    limiter.fixed("k", W, 1)
    assert not limiter.fixed("k", W, 1).allowed
    limiter.fixed("k", W, 1, refund=1)
    d = limiter.fixed("k", W, 1)
    assert (d.allowed, d.cached) == (True, False)


def test_the_limiters_block_ms_is_every_recording_calls_default(make_limiter, r, call):
    limiter = make_limiter(block_ms=BLOCK)
    for _ in range(4):
        d = call(limiter)
    assert d.retry_after_ms > W
    assert call(limiter, refund=1).retry_after_ms > W  # a refund sends no BLOCK: not refused
    assert call(limiter, block_ms=1).retry_after_ms > W  # the call's own: no extension either
