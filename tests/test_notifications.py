"""Keyspace notifications: each write fires the events the equivalent core commands would
(ZREMRANGEBYSCORE / ZADD / PEXPIREAT / DEL, SET ... PXAT / INCRBY); nothing else fires."""

import uuid

import pytest

from kit.commands import call
from kit.keyspace import server_ms
from kit.support import W, KeyEvents



@pytest.fixture(scope="module")
def notifying(server):
    server.client.config_set("notify-keyspace-events", "KEA")
    yield server
    server.client.config_set("notify-keyspace-events", "")


@pytest.fixture
def ev(notifying, r):
    recorder = KeyEvents(notifying.new_client())
    yield recorder
    recorder.close()


def seed(r, key, scores):
    r.zadd(key, {str(uuid.uuid4()): s for s in scores})


def test_slide_accepted_on_new_key_fires_zadd_then_expire(r, ev):
    assert ev.events(lambda: call(r, "slide", "k", W, 5)) == [("zadd", "k"), ("expire", "k")]


def test_slide_accepted_with_cost_fires_one_zadd(r, ev):
    assert ev.events(lambda: call(r, "slide", "k", W, 5, "COST", 3)) == [("zadd", "k"), ("expire", "k")]


def test_slide_trimming_stale_entries_fires_zremrangebyscore(r, ev):
    now = server_ms(r)
    seed(r, "k", [now - 3 * W, now - 2 * W, now - 200, now - 100])
    r.pexpireat("k", now - 100 + W)  # already the expiry the call would set
    rep_events = ev.events(lambda: call(r, "slide", "k", W, 2))  # rejected: 2 counted
    assert rep_events == [("zremrangebyscore", "k")]
    assert r.zcard("k") == 2


def test_slide_on_a_log_where_nothing_counts_deletes_it_and_fires_del(r, ev):
    now = server_ms(r)
    seed(r, "k", [now - 3 * W, now - 2 * W])
    assert ev.events(lambda: call(r, "slide", "k", W, 0)) == [("del", "k")]
    assert r.exists("k") == 0


def test_slide_accepted_after_trimming_fires_zremrangebyscore_zadd_expire(r, ev):
    now = server_ms(r)
    seed(r, "k", [now - 2 * W, now - 100])
    assert ev.events(lambda: call(r, "slide", "k", W, 5)) == \
        [("zremrangebyscore", "k"), ("zadd", "k"), ("expire", "k")]


def test_slide_healing_a_missing_ttl_fires_expire(r, ev):
    now = server_ms(r)
    seed(r, "k", [now - 100])
    assert ev.events(lambda: call(r, "slide", "k", W, 1)) == [("expire", "k")]  # rejected


def test_slide_rejected_on_tidy_key_fires_nothing(r, ev):
    call(r, "slide", "k", W, 1)
    assert ev.events(lambda: call(r, "slide", "k", W, 1)) == []


def test_fixed_first_call_fires_set_then_expire(r, ev):
    assert ev.events(lambda: call(r, "fixed", "k", W, 5)) == [("set", "k"), ("expire", "k")]


def test_fixed_aligned_first_call_fires_set_then_expire(r, ev):
    assert ev.events(lambda: call(r, "fixed", "k", W, 5, "ALIGN")) == [("set", "k"), ("expire", "k")]


def test_fixed_later_accepted_call_fires_incrby(r, ev):
    call(r, "fixed", "k", W, 5)
    assert ev.events(lambda: call(r, "fixed", "k", W, 5, "COST", 2)) == [("incrby", "k")]


def test_fixed_healing_a_missing_ttl_fires_expire(r, ev):
    r.set("k", 9)
    assert ev.events(lambda: call(r, "fixed", "k", W, 5)) == [("expire", "k")]  # rejected


def test_fixed_rejected_on_tidy_key_fires_nothing(r, ev):
    call(r, "fixed", "k", W, 1)
    assert ev.events(lambda: call(r, "fixed", "k", W, 1)) == []


def test_cost_above_limit_fires_nothing(r, ev):
    call(r, "slide", "s", W, 5)
    call(r, "fixed", "f", W, 5)
    assert ev.events(lambda: [call(r, "slide", "s", W, 2, "COST", 3),
                              call(r, "fixed", "f", W, 2, "COST", 3),
                              call(r, "slide", "new", W, 0),
                              call(r, "fixed", "new", W, 0)]) == []


def test_ro_variants_fire_nothing(r, ev):
    now = server_ms(r)
    seed(r, "s", [now - 2 * W, now - 100])   # stale entry, no TTL: a writer would trim and heal
    r.set("f", 2)                             # no TTL: a writer would heal
    assert ev.events(lambda: [call(r, "slide_ro", "s", W, 5), call(r, "slide_ro", "s", W, 1),
                              call(r, "fixed_ro", "f", W, 5), call(r, "fixed_ro", "f", W, 1),
                              call(r, "slide_ro", "new", W, 5), call(r, "fixed_ro", "new", W, 5)]) == []


def test_gcra_accepted_fires_set_then_expire(r, ev):
    assert ev.events(lambda: call(r, "gcra", "k", W, 5)) == [("set", "k"), ("expire", "k")]


def test_gcra_rejected_and_read_only_fire_nothing(r, ev):
    call(r, "gcra", "k", W, 1)
    assert ev.events(lambda: call(r, "gcra", "k", W, 1)) == []
    assert ev.events(lambda: call(r, "gcra_ro", "k", W, 1)) == []


def test_bucket_first_call_fires_set_then_expire(r, ev):
    assert ev.events(lambda: call(r, "slide", "k", W, 5, "BUCKET", 1000)) == [("set", "k"), ("expire", "k")]
