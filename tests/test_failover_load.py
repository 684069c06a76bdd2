"""Failover under load: what WAIT confirmed before a replica is promoted is counted on the
new master, which goes on limiting exactly; a coordinated FAILOVER keeps every acknowledged
unit."""

import threading

import pytest

from kit.durability import SHAPES, Tally, hammer, recorded, with_limit
from kit.keyspace import server_ms
from kit.support import promote_with_failover, promote_with_replicaof_no_one, wait_until


CONFIRMED_BEFORE_PROMOTION = 200   # units WAIT confirmed on every key before the promotion


@pytest.mark.parametrize("promotion", [promote_with_replicaof_no_one, promote_with_failover], ids=["replicaof-no-one", "failover"])
def test_units_confirmed_before_a_promotion_are_counted_and_limits_stay_exact(start_server, promotion):
    master = start_server()
    replica = start_server(args=["--replicaof", "127.0.0.1", str(master.port)])
    replica.wait_replica_synced()
    started_ms = server_ms(master.client)
    keys = [(name, f"{name}:k", Tally()) for name in SHAPES]
    stop = threading.Event()
    threads = [threading.Thread(target=hammer, args=(master, name, key, tally, stop), kwargs={"wait_every": 10})
               for name, key, tally in keys]
    for t in threads:
        t.start()
    try:
        wait_until(lambda: all(tally.confirmed >= CONFIRMED_BEFORE_PROMOTION for _, _, tally in keys),
                   what="units confirmed by WAIT")
        confirmed = {key: tally.confirmed for _, key, tally in keys}
        promotion(master, replica)  # while every client goes on calling
    finally:
        stop.set()
        for t in threads:
            t.join(10)
    r = replica.client
    for name, key, tally in keys:
        found = recorded(r, name, key, started_ms)
        print(f"failover {promotion.__name__} {key}: confirmed by WAIT {confirmed[key]}, "
              f"acknowledged {tally.acked}, in flight {tally.in_flight}, counted on the new master {found}")
        assert tally.error is None, (key, tally.error)
        assert confirmed[key] >= CONFIRMED_BEFORE_PROMOTION
        # Nothing confirmed is lost, and nothing is counted that the old master did not take.
        assert confirmed[key] <= found <= tally.acked + tally.in_flight, key
        if promotion is promote_with_failover:
            # FAILOVER waits for the replica before it swaps; writes that arrive meanwhile
            # are refused (READONLY), so the new master holds exactly what was acknowledged.
            assert found == tally.acked, key
        # The new master limits exactly from what it holds: room for 3 more, then none.
        command, *args = with_limit(name, found + 3)
        replies = [r.execute_command(command, key, *args) for _ in range(4)]
        assert [reply[0] for reply in replies] == [1, 1, 1, 0], (key, replies)
        assert [reply[2] for reply in replies] == [2, 1, 0, 0], (key, replies)
        assert recorded(r, name, key, started_ms) == found + 3, key
