"""winlimit.Limiter and winlimit.asyncio.Limiter against a real server with the module."""

import asyncio

import pytest
import redis
import redis.asyncio

import winlimit
import winlimit.asyncio

W = 60_000


@pytest.fixture
def limiter(r):
    return winlimit.Limiter(r)


def test_slide_returns_the_five_fields_by_name(limiter):
    d = limiter.slide("k", W, 3)
    assert (d.allowed, d.limit, d.remaining, d.retry_after_ms, d.reset_after_ms) == (True, 3, 2, 0, W)


def test_slide_rejects_past_the_limit_with_a_retry(limiter):
    for _ in range(3):
        limiter.slide("k", W, 3)
    d = limiter.slide("k", W, 3)
    assert not d.allowed and 0 < d.retry_after_ms <= W


def test_several_pairs_bind_the_tightest(limiter):
    d = limiter.slide("k", [(1000, 2), (W, 100)])
    assert (d.limit, d.remaining, d.window_ms) == (2, 1, 1000)
    assert d.policies == ((1000, 2), (W, 100))


def test_cost_bucket_and_peek(limiter, r):
    assert limiter.slide("b", W, 10, cost=4, bucket=1000).remaining == 6
    assert r.type("b") == b"hash"
    assert limiter.slide("b", W, 10, bucket=1000, peek=True).remaining == 6
    assert limiter.slide("b", W, 10, cost=7, bucket=1000, peek=True).allowed is False


def test_fixed_with_align_and_peek(limiter, r):
    assert limiter.fixed("f", 10**12, 5, align=True, cost=2).remaining == 3
    assert limiter.fixed("f", 10**12, 5, peek=True).remaining == 3
    assert r.get("f") == b"2"


def test_gcra_with_burst(limiter):
    d = limiter.gcra("g", W, 100, burst=2)
    assert (d.allowed, d.limit, d.remaining) == (True, 2, 1)
    assert limiter.gcra("g", W, 100, burst=2, cost=2).allowed is False
    assert limiter.gcra("g", W, 100, burst=2, peek=True).remaining == 1


def test_bad_arguments_raise_the_servers_own_error(limiter):
    with pytest.raises(redis.ResponseError, match="window_ms must be an integer"):
        limiter.slide("k", 0, 3)
    with pytest.raises(redis.ResponseError, match="BUCKET"):
        limiter.slide("k", W, 3, bucket=W + 1)


def test_a_server_without_the_module_names_the_fix(start_server):
    bare = start_server(module=False)
    with pytest.raises(winlimit.ModuleNotLoaded, match="MODULE LOAD"):
        winlimit.Limiter(bare.client).slide("k", W, 3)


def test_window_and_pairs_are_not_mixed(limiter):
    with pytest.raises(TypeError):
        limiter.slide("k", [(1000, 2)], 5)
    with pytest.raises(TypeError):
        limiter.slide("k", 1000)


def test_asyncio_limiter_answers_the_same(server, r):
    async def run():
        client = redis.asyncio.Redis(port=server.port)
        try:
            limiter = winlimit.asyncio.Limiter(client)
            return [await limiter.slide("a", W, 2), await limiter.fixed("f", W, 2),
                    await limiter.gcra("g", W, 2), await limiter.slide("a", [(1000, 1), (W, 5)], peek=True)]
        finally:
            await client.aclose()

    slide, fixed, gcra, peek = asyncio.run(run())
    assert (slide.remaining, fixed.remaining, gcra.remaining) == (1, 1, 1)
    assert (peek.allowed, peek.limit) == (False, 1)


def test_asyncio_limiter_names_the_missing_module(start_server):
    bare = start_server(module=False)

    async def run():
        client = redis.asyncio.Redis(port=bare.port)
        try:
            await winlimit.asyncio.Limiter(client).gcra("k", W, 3)
        finally:
            await client.aclose()

    with pytest.raises(winlimit.ModuleNotLoaded):
        asyncio.run(run())
