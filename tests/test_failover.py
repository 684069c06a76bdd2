"""Promoting a replica (which loads the module) to master: limiting goes on over the same
keys, with no unit lost or counted twice.

(A replica without the module ending with identical keys is test_replication.py's
test_replica_ends_identical[no-module].)
"""

import pytest
import redis

from kit.commands import call
from kit.support import W, promote_with_failover, promote_with_replicaof_no_one


PROMOTIONS = {"replicaof-no-one": promote_with_replicaof_no_one, "failover": promote_with_failover}


@pytest.mark.parametrize("promotion", PROMOTIONS)
@pytest.mark.parametrize("command", ["slide", "fixed"])
def test_promoted_replica_accepts_exactly_the_units_left(master_replica, command, promotion):
    master, replica = master_replica
    assert [call(master.client, command, "k", W, 10).remaining for _ in range(6)] == [9, 8, 7, 6, 5, 4]
    assert master.client.execute_command("WAIT", 1, 5000) == 1
    PROMOTIONS[promotion](master, replica)
    replies = [call(replica.client, command, "k", W, 10) for _ in range(6)]
    assert [r.allowed for r in replies] == [1, 1, 1, 1, 0, 0]
    assert [r.remaining for r in replies] == [3, 2, 1, 0, 0, 0]
    stored = replica.client.zcard("k") if command == "slide" else int(replica.client.get("k"))
    assert stored == 10


@pytest.mark.parametrize("promotion", PROMOTIONS)
def test_promoted_replica_reports_the_same_window_in_ro_variants(master_replica, promotion):
    master, replica = master_replica
    for _ in range(3):
        call(master.client, "slide", "s", W, 10, "COST", 2)
        call(master.client, "fixed", "f", W, 10, "COST", 2)
    assert master.client.execute_command("WAIT", 1, 5000) == 1
    PROMOTIONS[promotion](master, replica)
    assert call(replica.client, "slide_ro", "s", W, 10, "COST", 4)[:3] == (1, 10, 4)
    assert call(replica.client, "fixed_ro", "f", W, 10, "COST", 5)[:3] == (0, 10, 4)


def test_old_master_after_failover_refuses_writes_and_follows_the_new_master(master_replica):
    master, replica = master_replica
    call(master.client, "fixed", "f", W, 10)
    assert master.client.execute_command("WAIT", 1, 5000) == 1
    promote_with_failover(master, replica)
    with pytest.raises(redis.ReadOnlyError):
        call(master.client, "fixed", "f", W, 10)
    call(replica.client, "fixed", "f", W, 10)
    assert replica.client.execute_command("WAIT", 1, 5000) == 1
    assert master.client.get("f") == b"2"
