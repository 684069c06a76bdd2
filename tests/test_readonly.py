"""WINLIMIT.SLIDE_RO / WINLIMIT.FIXED_RO: report what the writer would do, write nothing."""

import uuid

import pytest
import redis

from kit.commands import call
from kit.keyspace import pexpiretime, server_ms, snapshot


W = 60000


def slide(r, *args):
    return call(r, "slide", *args)


def fixed(r, *args):
    return call(r, "fixed", *args)


def slide_ro(r, *args):
    return call(r, "slide_ro", *args)


def fixed_ro(r, *args):
    return call(r, "fixed_ro", *args)


# ---- empty keys ----

def test_slide_ro_on_missing_key_reports_full_limit_and_creates_nothing(r):
    assert slide_ro(r, "k", W, 5) == (1, 5, 5, 0, 0)
    assert r.dbsize() == 0


def test_fixed_ro_on_missing_key_reports_full_limit_and_creates_nothing(r):
    assert fixed_ro(r, "k", W, 5) == (1, 5, 5, 0, 0)
    assert fixed_ro(r, "k", W, 5, "ALIGN") == (1, 5, 5, 0, 0)
    assert r.dbsize() == 0


def test_ro_cost_above_limit_gives_retry_after_minus_one(r):
    assert slide_ro(r, "k", W, 3, "COST", 4) == (0, 3, 3, -1, 0)
    assert fixed_ro(r, "k", W, 3, "COST", 4) == (0, 3, 3, -1, 0)
    assert slide_ro(r, "k", W, 0) == (0, 0, 0, -1, 0)
    assert fixed_ro(r, "k", W, 0) == (0, 0, 0, -1, 0)
    assert r.dbsize() == 0


# ---- SLIDE_RO ----

def test_slide_ro_reports_counted_entries_and_writes_nothing(r):
    slide(r, "k", W, 5)
    slide(r, "k", W, 5)
    before = snapshot(r, dump=True)
    rep = slide_ro(r, "k", W, 5)
    assert (rep.allowed, rep.limit, rep.remaining, rep.retry_after) == (1, 5, 3, 0)
    assert 0 < rep.reset_after <= W
    assert snapshot(r, dump=True) == before


def test_slide_ro_remaining_is_limit_minus_counted_whatever_the_cost(r):
    slide(r, "k", W, 5, "COST", 2)
    assert slide_ro(r, "k", W, 5, "COST", 2)[:4] == (1, 5, 3, 0)
    rep = slide_ro(r, "k", W, 5, "COST", 4)
    assert (rep.allowed, rep.remaining) == (0, 3)
    assert rep.retry_after > 0


def test_slide_ro_rejection_reports_same_timing_as_writer(r):
    now = server_ms(r)
    r.zadd("k", {str(uuid.uuid4()): s for s in (now - 3000, now - 2000, now - 1000)})
    t0 = server_ms(r)
    ro = slide_ro(r, "k", W, 3)
    t1 = server_ms(r)
    assert (ro.allowed, ro.remaining) == (0, 0)
    assert t0 <= (now - 3000) + W - ro.retry_after <= t1
    assert ro.reset_after - ro.retry_after == 2000


def test_slide_ro_does_not_remove_stale_entries(r):
    now = server_ms(r)
    r.zadd("k", {str(uuid.uuid4()): s for s in (now - 3 * W, now - W - 1, now - 1000)})
    r.pexpireat("k", now + W)
    before = snapshot(r, dump=True)
    assert slide_ro(r, "k", W, 5).remaining == 4
    assert snapshot(r, dump=True) == before


def test_slide_ro_does_not_set_a_missing_ttl(r):
    r.zadd("k", {"a": server_ms(r)})
    slide_ro(r, "k", W, 5)
    assert r.pttl("k") == -1


# ---- FIXED_RO ----

def test_fixed_ro_reports_count_and_writes_nothing(r):
    fixed(r, "k", W, 5, "COST", 2)
    before = snapshot(r, dump=True)
    rep = fixed_ro(r, "k", W, 5)
    assert rep[:4] == (1, 5, 3, 0)
    assert 0 < rep.reset_after <= W
    assert fixed_ro(r, "k", W, 5, "COST", 3)[:4] == (1, 5, 3, 0)
    assert fixed_ro(r, "k", W, 5, "COST", 4)[:3] == (0, 5, 3)
    assert snapshot(r, dump=True) == before


def test_fixed_ro_rejection_retry_after_is_time_left_in_window(r):
    for _ in range(3):
        fixed(r, "k", W, 3)
    t0 = server_ms(r)
    rep = fixed_ro(r, "k", W, 3)
    t1 = server_ms(r)
    assert (rep.allowed, rep.remaining) == (0, 0)
    assert rep.retry_after == rep.reset_after
    assert t0 <= pexpiretime(r, "k") - rep.retry_after <= t1


def test_fixed_ro_does_not_heal_counter_without_ttl(r):
    r.set("k", 2)
    assert fixed_ro(r, "k", W, 5)[:4] == (1, 5, 3, 0)
    assert fixed_ro(r, "k", W, 5, "ALIGN")[:4] == (1, 5, 3, 0)
    assert r.pttl("k") == -1
    assert r.get("k") == b"2"


def test_fixed_ro_limit_below_count_gives_remaining_zero(r):
    r.set("k", 10, px=W)
    rep = fixed_ro(r, "k", W, 3)
    assert (rep.allowed, rep.remaining) == (0, 0)


# ---- command flags and replicas ----

@pytest.mark.parametrize("name", ["winlimit.slide_ro", "winlimit.fixed_ro"])
def test_ro_commands_are_flagged_readonly(r, name):
    flags = r.execute_command("COMMAND", "INFO", name)[name]["flags"]
    assert "readonly" in flags and "write" not in flags


@pytest.mark.parametrize("name", ["winlimit.slide", "winlimit.fixed"])
def test_writing_commands_are_flagged_write(r, name):
    assert "write" in r.execute_command("COMMAND", "INFO", name)[name]["flags"]


def test_ro_variants_answer_on_a_replica(master_replica):
    master, replica = master_replica
    m, rep = master.client, replica.client
    slide(m, "s", W, 5)
    fixed(m, "f", W, 5, "COST", 2)
    assert m.execute_command("WAIT", 1, 5000) == 1
    assert slide_ro(rep, "s", W, 5)[:4] == (1, 5, 4, 0)
    assert fixed_ro(rep, "f", W, 5)[:4] == (1, 5, 3, 0)
    assert snapshot(rep) == snapshot(m)


@pytest.mark.parametrize("command", ["slide", "fixed"])
def test_writing_variants_are_refused_on_a_replica(master_replica, command):
    _, replica = master_replica
    with pytest.raises(redis.ReadOnlyError):
        call(replica.client, command, "k", W, 5)
    assert replica.client.dbsize() == 0
