"""RDB and AOF keep every limiter key: value, members, scores and absolute expiry.

(A plain AOF restart, with and without the module, is test_replication.py's
test_aof_restart_restores_identical_keyspace; here: DEBUG RELOAD, SAVE + restart, and
restarts from an AOF after BGREWRITEAOF.)
"""

import pytest

from kit.server import REDIS_62
from kit.commands import call
from kit.keyspace import snapshot
from kit.aof import rewrite_done
from kit.support import ALIGNED_W, W, wait_until, workload


MODULE = pytest.mark.parametrize("module_on_restart", [True, False], ids=["module", "no-module"])


def test_debug_reload_keeps_every_key_value_score_and_expiry(start_server):
    s = start_server(args=[] if REDIS_62 else ["--enable-debug-command", "yes"])
    keys = workload(s.client)
    before = snapshot(s.client)
    assert len(before) == keys
    assert s.client.execute_command("DEBUG", "RELOAD") == b"OK"
    assert snapshot(s.client) == before


@MODULE
def test_restart_from_rdb_keeps_every_key_value_score_and_expiry(start_server, module_on_restart):
    s = start_server()
    keys = workload(s.client)
    before = snapshot(s.client)
    assert len(before) == keys
    assert s.client.save()
    s.restart(module=module_on_restart)
    assert snapshot(s.client) == before


def test_limits_carry_on_after_restart_from_rdb(start_server):
    s = start_server()
    for _ in range(2):
        call(s.client, "slide", "s", W, 3)
        call(s.client, "fixed", "f", W, 3)
    assert s.client.save()
    s.restart()
    assert [call(s.client, "slide", "s", W, 3).allowed for _ in range(2)] == [1, 0]
    assert [call(s.client, "fixed", "f", W, 3).allowed for _ in range(2)] == [1, 0]


@MODULE
def test_restart_from_aof_after_bgrewriteaof_keeps_the_keyspace(start_server, module_on_restart):
    s = start_server(args=["--appendonly", "yes"])
    r = s.client
    wait_until(lambda: rewrite_done(r), what="initial AOF rewrite")
    keys = workload(r)
    r.bgrewriteaof()
    wait_until(lambda: rewrite_done(r), what="BGREWRITEAOF")
    assert r.info("persistence")["aof_last_bgrewrite_status"] == "ok"
    # More effects after the rewrite: they live in the incremental AOF only.
    for _ in range(4):
        call(r, "slide", "s:basic", W, 5)
        call(r, "slide", "s:after", W, 2)
        call(r, "fixed", "f:basic", W, 5)
        # ALIGNED_W: a one-minute aligned window could end during the restart.
        call(r, "fixed", "f:after", ALIGNED_W, 2, "ALIGN")
    before = snapshot(r)
    assert len(before) == keys + 2
    s.restart(module=module_on_restart)
    assert snapshot(s.client) == before
