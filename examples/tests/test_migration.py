"""docs/migration/scripts.md's before and after (examples/migration/seeds.py) on a real Redis with
the module: each "after" decides as its "before" does on calls one at a time, and fixes the
bug the page names; the "after" takes over a "before"'s keys live."""

import os
import sys

import time

import winlimit


sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "migration"))
import seeds  # noqa: E402


def spaced(before, client, user, n):
    """n calls of a log script a few ms apart: in one ms they would be one member (its bug)."""
    answers = []
    for _ in range(n):
        answers.append(before(client, user))
        time.sleep(0.003)
    return answers


def test_a_counter_allows_100_a_minute_before_and_after(client):
    limiter = winlimit.Limiter(client)
    assert [seeds.allowed_incr_expire(client, "ann") for _ in range(101)] == [True] * 100 + [False]
    assert [seeds.allowed_fixed(limiter, "bob") for _ in range(101)] == [True] * 100 + [False]


def test_a_counter_left_without_a_ttl_is_healed_after(client):
    client.set("rate.limiting:ann", 5)  # the INCR of a client that crashed before its EXPIRE
    assert seeds.allowed_fixed(winlimit.Limiter(client), "ann")
    assert client.pttl("rate.limiting:ann") > 0


def test_a_sliding_hour_allows_3_before_and_after(client):
    limiter = winlimit.Limiter(client)
    assert spaced(seeds.allowed_lua, client, "ann", 4) == [True, True, True, False]
    assert [seeds.allowed_slide(limiter, "bob") for _ in range(4)] == [True, True, True, False]


def test_the_pipeline_records_its_rejections_and_the_call_does_not(client):
    limiter = winlimit.Limiter(client)
    assert spaced(seeds.allowed_zset_pipeline, client, "ann", 5) == [True, True, True, False, False]
    assert client.zcard("sms:ann") == 5  # the rejected tries count too: the user stays locked out
    assert [seeds.allowed_slide(limiter, "bob") for _ in range(5)] == [True, True, True, False, False]
    assert client.zcard("sms:bob") == 3


def test_the_call_takes_over_the_scripts_keys_live(client):
    spaced(seeds.allowed_lua, client, "ann", 2)  # two SMS sent by the script
    d = winlimit.Limiter(client).slide("sms:ann", 3_600_000, 3)
    assert (d.allowed, d.remaining) == (True, 0)
