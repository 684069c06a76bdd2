"""CL.THROTTLE with `cell-compat yes`: redis-cell's command and reply, answered by
winlimit's GCRA, for users moving from redis-cell."""

import json
import os

import pytest
import redis

from kit import editions
from kit.aof import APPEND_ONLY
from kit.fixtures import module_server
from kit.server import REDIS_62
from kit.errors import error_of
from kit.keyspace import server_ms, snapshot

pytestmark = editions.module_only("CL.THROTTLE is not part of the library")


SEQUENCE = os.path.join(os.path.dirname(__file__), "data", "redis_cell_sequence.json")


compat = module_server(module_args=["cell-compat", "yes"], args=APPEND_ONLY)


@pytest.fixture
def rc(compat):
    compat.client.flushall()
    return compat.client


def throttle(r, *args):
    return r.execute_command("CL.THROTTLE", *args)


def test_answers_like_redis_cell_for_a_recorded_sequence(rc):
    """Replies recorded from redis-cell 0.5.0 (see the data file): decisions, limits and
    remaining units equal; times within a second."""
    with open(SEQUENCE) as f:
        recorded = json.load(f)["calls"]
    for step in recorded:
        ours = throttle(rc, *step["args"])
        theirs = step["reply"]
        assert ours[:3] == theirs[:3], step
        for mine, cell in zip(ours[3:], theirs[3:]):
            assert abs(mine - cell) <= 1, step


def test_a_key_written_by_redis_cell_carries_over(rc):
    # redis-cell keeps the TAT as decimal ns: two units taken from a bucket of 5 (10/hour).
    tat_ns = (server_ms(rc) + 2 * 360_000) * 1_000_000
    rc.set("k", tat_ns, px=2 * 360_000)
    reply = throttle(rc, "k", 4, 10, 3600)
    assert reply[:3] == [0, 5, 2]
    value = rc.get("k").decode()
    assert value.startswith("gcra:") and value.split(":")[3] == "10"


def test_quantity_zero_answers_and_writes_nothing(compat, rc):
    throttle(rc, "k", 4, 10, 3600)
    before = snapshot(rc, dump=True)
    size = compat.client.info("persistence").get("aof_current_size")
    assert throttle(rc, "k", 4, 10, 3600, 0)[:3] == [0, 5, 4]
    assert throttle(rc, "new", 4, 10, 3600, 0)[:3] == [0, 5, 5]
    assert snapshot(rc, dump=True) == before
    assert compat.client.info("persistence").get("aof_current_size") == size


def test_a_quantity_above_the_burst_is_limited_with_minus_one(rc):
    assert throttle(rc, "k", 2, 5, 300, 4) == [1, 3, 3, -1, 0]


@pytest.mark.parametrize("args, error", [
    ([-1, 10, 60], "ERR max_burst must be an integer between 0 and 999999999999"),
    ([10**12, 10, 60], "ERR max_burst must be an integer between 0 and 999999999999"),
    ([4, 0, 60], "ERR count_per_period must be an integer between 1 and 1000000000000"),
    ([4, 10, 0], "ERR period_s must be an integer between 1 and 1000000000"),
    ([4, 10, 10**9 + 1], "ERR period_s must be an integer between 1 and 1000000000"),
    ([4, 10, 60, -1], "ERR quantity must be a non-negative integer"),
    ([4, 10, 60, "x"], "ERR quantity must be a non-negative integer"),
    ([10**9, 1, 10**9], "ERR max_burst too large: (max_burst + 1) * period_s / count_per_period "
                        "must be at most 1000000000"),
    ([4, 10, 60, 1, 1], "ERR wrong number of arguments for 'cl.throttle' command"),
])
def test_bad_arguments_are_named_and_write_nothing(compat, rc, args, error):
    throttle(rc, "k", 4, 10, 3600)
    before = snapshot(rc, dump=True)
    assert error_of(compat.port, "CL.THROTTLE", "k", *args) == error
    assert snapshot(rc, dump=True) == before


def test_a_fixed_counter_is_read_as_redis_cell_state_but_gcra_refuses_it(compat, rc):
    rc.set("c", 5)
    assert error_of(compat.port, "WINLIMIT.GCRA", "c", 60000, 10) == "ERR this key holds no GCRA state"
    assert throttle(rc, "c", 4, 10, 3600)[0] == 0  # 5 ns after the epoch: a full bucket


def test_stats_are_named_cl_throttle(rc):
    throttle(rc, "k", 4, 10, 3600)
    assert rc.info("winlimit")["winlimit_cl_throttle_calls"] >= 1


def test_absent_without_cell_compat(server, r):
    assert error_of(server.port, "CL.THROTTLE", "k", 4, 10, 60).startswith("ERR unknown command")


def test_cell_compat_cannot_be_changed_at_run_time(compat, rc):
    if not REDIS_62:  # Redis 6.2 has no module configs: the module argument is the only way
        assert rc.config_get("winlimit.cell-compat") == {"winlimit.cell-compat": "yes"}
    with pytest.raises(redis.ResponseError):
        rc.config_set("winlimit.cell-compat", "no")
    assert throttle(rc, "k", 4, 10, 60)[:2] == [0, 5]


@pytest.mark.skipif(REDIS_62, reason="Redis 6 (6.0, 6.2) has no module configs: cell-compat is a module argument there")
def test_the_config_file_setting_registers_it(start_server):
    s = start_server(args=["--winlimit.cell-compat", "yes"])
    assert s.client.execute_command("CL.THROTTLE", "k", 4, 10, 60)[:3] == [0, 5, 4]
