"""winlimit.Limiter and winlimit.asyncio.Limiter against a real redis-server with the module:
every method and option, each test run over the sync and the asyncio client (`flavour`).
What each call sent is read back from the server's own keys."""

import pytest
import redis
import redis.asyncio

import winlimit

from conftest import BACKEND, as_sent
from kit.bucket_layout import bucket_log
from kit.keyspace import pexpiretime, server_ms

W = 60_000


def between_calls(r, call):
    """(server ms before, result, server ms after): the call ran at a time in between."""
    before = server_ms(r)
    result = call()
    return before, result, server_ms(r)


def test_every_decision_names_the_backend_that_answered(limiter, r):
    decisions = [limiter.slide("s", W, 3), limiter.fixed("f", W, 3, peek=True), limiter.gcra("g", W, 3)]
    assert [d.backend for d in decisions] == [BACKEND] * 3


# --- SLIDE ---------------------------------------------------------------------------------


def test_slide_returns_the_five_fields_by_name(limiter, r):
    d = limiter.slide("k", W, 3)
    assert (d.allowed, d.limit, d.remaining, d.retry_after_ms, d.reset_after_ms) == (True, 3, 2, 0, W)
    assert r.zcard("k") == 1


def test_slide_rejection_waits_until_the_oldest_unit_leaves(limiter, r):
    for _ in range(3):
        limiter.slide("k", W, 3)
    before, d, after = between_calls(r, lambda: limiter.slide("k", W, 3))
    oldest = int(r.zrange("k", 0, 0, withscores=True)[0][1])
    assert (d.allowed, d.remaining) == (False, 0)
    assert oldest + W - after <= d.retry_after_ms <= oldest + W - before
    assert r.zcard("k") == 3


def test_slide_cost_takes_that_many_units(limiter, r):
    d = limiter.slide("k", W, 10, cost=4)
    assert (d.allowed, d.remaining) == (True, 6)
    assert r.zcard("k") == 4


def test_slide_several_pairs_are_one_call_reporting_the_binding_pair(limiter, r):
    d = limiter.slide("k", [(1000, 2), (W, 100)])
    assert (d.allowed, d.limit, d.remaining, d.window_ms) == (True, 2, 1, 1000)
    assert [(p.quota, p.window_ms) for p in d.policies] == [(2, 1000), (100, W)]
    assert r.zcard("k") == 1


def test_slide_several_pairs_reject_when_any_pair_is_full(limiter, r):
    limiter.slide("k", [(1000, 5), (W, 2)], cost=2)
    d = limiter.slide("k", [(1000, 5), (W, 2)])
    assert (d.allowed, d.limit, d.remaining, d.window_ms) == (False, 2, 0, W)
    assert r.zcard("k") == 2


def test_slide_bucket_counts_per_bucket_of_that_length(limiter, r):
    d = limiter.slide("k", W, 10, cost=3, bucket=1000)
    assert (d.allowed, d.remaining) == (True, 7)
    stored = bucket_log(r, "k")
    assert (stored["bucket_ms"], stored["total"]) == (1000, 3)


def test_slide_peek_asks_slide_ro_which_records_nothing(limiter, r):
    limiter.slide("k", W, 5, cost=2)
    d = limiter.slide("k", W, 5, peek=True)
    assert (d.allowed, d.remaining) == (True, 3)
    assert r.zcard("k") == 2
    assert limiter.slide("fresh", W, 5, peek=True).remaining == 5
    assert r.exists("fresh") == 0


def test_slide_peek_takes_every_option(limiter, r):
    limiter.slide("k", [(1000, 4), (W, 10)], cost=3, bucket=100)
    d = limiter.slide("k", [(1000, 4), (W, 10)], cost=2, bucket=100, peek=True)
    assert (d.allowed, d.limit, d.remaining, d.window_ms) == (False, 4, 1, 1000)
    assert bucket_log(r, "k")["total"] == 3


# --- FIXED ---------------------------------------------------------------------------------


def test_fixed_counts_in_a_string_that_expires_with_the_window(limiter, r):
    before, d, _ = between_calls(r, lambda: limiter.fixed("k", W, 3))
    assert (d.allowed, d.limit, d.remaining, d.retry_after_ms, d.reset_after_ms) == (True, 3, 2, 0, W)
    assert r.get("k") == b"1"
    assert pexpiretime(r, "k") - before >= W


def test_fixed_cost_takes_that_many_units(limiter, r):
    assert limiter.fixed("k", W, 5, cost=2).remaining == 3
    assert r.get("k") == b"2"


def test_fixed_rejection_waits_for_the_window_to_end(limiter, r):
    limiter.fixed("k", W, 1)
    d = limiter.fixed("k", W, 1)
    assert (d.allowed, d.remaining) == (False, 0)
    assert d.retry_after_ms == d.reset_after_ms and 0 < d.retry_after_ms <= W


def test_fixed_align_ends_the_window_on_a_multiple_of_window_ms(limiter, r):
    d = limiter.fixed("k", W, 3, align=True)
    expiry = pexpiretime(r, "k")
    assert expiry % W == 0
    assert 0 < d.reset_after_ms <= W


def test_fixed_peek_asks_fixed_ro_which_records_nothing(limiter, r):
    limiter.fixed("k", W, 5, cost=2, align=True)
    d = limiter.fixed("k", W, 5, cost=4, align=True, peek=True)
    assert (d.allowed, d.remaining) == (False, 3)
    assert r.get("k") == b"2"


# --- GCRA ----------------------------------------------------------------------------------


def test_gcra_takes_from_a_bucket_of_limit_units(limiter, r):
    d = limiter.gcra("k", W, 3)
    # One unit out of a bucket refilling 3 per minute: full again in 20 s.
    assert (d.allowed, d.limit, d.remaining, d.retry_after_ms, d.reset_after_ms) == (True, 3, 2, 0, W // 3)
    assert r.get("k").startswith(b"gcra:")


def test_gcra_burst_is_the_buckets_capacity(limiter):
    d = limiter.gcra("k", W, 100, burst=2)
    assert (d.allowed, d.limit, d.remaining) == (True, 2, 1)
    assert limiter.gcra("k", W, 100, burst=2).allowed
    assert not limiter.gcra("k", W, 100, burst=2).allowed


def test_gcra_cost_takes_that_many_units(limiter):
    d = limiter.gcra("k", W, 10, burst=5, cost=3)
    assert (d.allowed, d.remaining, d.reset_after_ms) == (True, 2, 3 * W // 10)


def test_gcra_peek_asks_gcra_ro_which_records_nothing(limiter, r):
    limiter.gcra("k", W, 10, burst=5, cost=3)
    stored = r.get("k")
    d = limiter.gcra("k", W, 10, burst=5, cost=3, peek=True)
    assert (d.allowed, d.limit, d.remaining) == (False, 5, 2)
    assert r.get("k") == stored


# --- errors --------------------------------------------------------------------------------


@pytest.mark.parametrize("method, args, kwargs, raw", [
    ("slide", ("k", 0, 3), {}, ("WINLIMIT.SLIDE", "k", 0, 3)),
    ("slide", ("k", [(1000, 2), (1000, 3)]), {}, ("WINLIMIT.SLIDE", "k", 1000, 2, 1000, 3)),
    ("slide", ("k", W, 3), {"bucket": W + 1}, ("WINLIMIT.SLIDE", "k", W, 3, "BUCKET", W + 1)),
    ("slide", ("k", W, 3), {"cost": 0}, ("WINLIMIT.SLIDE", "k", W, 3, "COST", 0)),
    ("fixed", ("k", W, -1), {}, ("WINLIMIT.FIXED", "k", W, -1)),
    ("gcra", ("k", W, 0), {}, ("WINLIMIT.GCRA", "k", W, 0)),
    ("gcra", ("k", W, 10), {"burst": 0, "peek": True}, ("WINLIMIT.GCRA_RO", "k", W, 10, "BURST", 0)),
], ids=["window", "same-window-twice", "bucket", "cost", "fixed-limit", "gcra-limit", "gcra-ro-burst"])
def test_bad_arguments_raise_the_servers_own_error(limiter, r, method, args, kwargs, raw):
    with pytest.raises(redis.ResponseError) as direct:
        r.execute_command(*as_sent(r, *raw))
    with pytest.raises(redis.ResponseError) as through_client:
        getattr(limiter, method)(*args, **kwargs)
    assert type(through_client.value) is redis.ResponseError
    assert str(through_client.value) == str(direct.value)


def test_a_key_of_another_type_raises_wrongtype(limiter, r):
    r.set("k", "text")
    with pytest.raises(redis.ResponseError, match="^WRONGTYPE"):
        limiter.slide("k", W, 3)


def test_a_server_without_the_module_names_the_fix(start_server, make_limiter):
    bare = start_server(module=False)
    with pytest.raises(winlimit.ModuleNotLoaded) as e:
        make_limiter(port=bare.port, backend="module").gcra("k", W, 3)
    text = str(e.value)
    assert "unknown command" in text
    assert "--loadmodule" in text and "MODULE LOAD" in text
    assert isinstance(e.value, redis.ResponseError)


@pytest.mark.parametrize("call", [
    lambda lim: lim.slide("k", [(1000, 2)], 5),
    lambda lim: lim.slide("k", 1000),
    lambda lim: lim.slide("k", "1000", 5),
    lambda lim: lim.fixed("k", W, 2.5),
    lambda lim: lim.gcra("k", W, 10, burst=True),
], ids=["pairs-and-limit", "no-limit", "str-window", "float-limit", "bool-burst"])
def test_python_types_are_checked_before_anything_is_sent(limiter, r, call):
    with pytest.raises(TypeError):
        call(limiter)
    assert r.dbsize() == 0


def test_policy_names_are_printable_ascii(limiter, r):
    with pytest.raises(ValueError, match="printable ASCII"):
        winlimit.Limiter(r, name="zähler")
    with pytest.raises(ValueError, match="printable ASCII"):
        limiter.slide("k", W, 3, name="line\nbreak")
    assert r.dbsize() == 0


def test_a_name_given_to_a_call_names_its_policy(make_limiter, r):
    limiter = make_limiter(name="api")
    assert limiter.fixed("k", W, 3).policy.name == "api"
    assert limiter.fixed("k", W, 3, name="login").policy.name == "login"
    assert [p.name for p in limiter.slide("s", [(1000, 3), (1500, 4)]).policies] == ["api-1s", "api-1500ms"]


def test_an_asyncio_client_is_refused_by_the_sync_limiter(server):
    client = redis.asyncio.Redis(host="127.0.0.1", port=server.port)
    with pytest.raises(TypeError, match="winlimit.asyncio.Limiter"):
        winlimit.Limiter(client)
