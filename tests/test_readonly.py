"""The `_RO` readers report what their writer would do and write nothing: SLIDE_RO and
FIXED_RO in detail, then every reader of the kit's table."""

import uuid

import pytest
import redis

from kit import commands
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


# ---- every reader of the kit's table ----

READERS = [pytest.param(c, id=c.short) for c in commands.READERS]


def test_every_reader_has_a_writer_partner_and_the_other_way_round():
    for reader in commands.READERS:
        writer = commands.by_name(reader.partner)
        assert writer.writes and writer.partner == reader.name
        assert (writer.arguments, writer.key_type, writer.sample) == (reader.arguments, reader.key_type, reader.sample)


def assert_peek_foretells(peek, taken):
    """A reader's reply before an accepted writer's call of one unit: the same verdict and
    limit, and the remaining units before the writer took its unit."""
    assert (peek[0], peek[1], peek[2] - 1) == (taken[0], taken[1], taken[2]) == (1, taken[1], taken[2])


@pytest.mark.parametrize("reader", READERS)
def test_a_reader_on_a_missing_key_reports_a_full_budget_and_creates_nothing(r, reader):
    for i, args in enumerate((reader.sample, *reader.variants)):
        peek = r.execute_command(reader.name, f"k{i}", *args)
        assert r.dbsize() == 0
        assert peek[1:] == [peek[1], peek[1], 0, 0]
        assert_peek_foretells(peek, r.execute_command(reader.partner, f"k{i}", *args))
        r.flushall()


@pytest.mark.parametrize("reader", READERS)
def test_a_reader_reports_what_its_writer_would_and_writes_nothing(r, reader):
    for i, args in enumerate((reader.sample, *reader.variants)):
        key = f"k{i}"
        r.execute_command(reader.partner, key, *args)
        before = snapshot(r, dump=True)
        peek = r.execute_command(reader.name, key, *args)
        assert snapshot(r, dump=True) == before
        assert_peek_foretells(peek, r.execute_command(reader.partner, key, *args))


@pytest.mark.parametrize("reader", READERS)
def test_every_reader_answers_on_a_replica(master_replica, reader):
    master, replica = master_replica
    m, rep = master.client, replica.client
    m.execute_command(reader.partner, "k", *reader.sample)
    assert m.execute_command("WAIT", 1, 5000) == 1
    assert rep.execute_command(reader.name, "k", *reader.sample)[:3] == \
        m.execute_command(reader.name, "k", *reader.sample)[:3]
    assert snapshot(rep) == snapshot(m)


@pytest.mark.parametrize("writer", [pytest.param(c, id=c.short) for c in commands.WRITERS])
def test_every_writer_is_refused_on_a_replica(master_replica, writer):
    _, replica = master_replica
    with pytest.raises(redis.ReadOnlyError):
        replica.client.execute_command(writer.name, "k", *writer.sample)
    assert replica.client.dbsize() == 0
