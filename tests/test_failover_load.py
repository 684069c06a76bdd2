"""Failover under load: what WAIT confirmed before a replica is promoted is counted on the
new master, which goes on limiting exactly."""

import threading
import redis

from harness import call
from support import wait_until

W = 3_600_000
LIMIT = 10_000


def writer(master, key, confirmed, stop):
    """Accept units; after every tenth, WAIT for the replica and note what it confirmed."""
    client = master.new_client()
    accepted = 0
    while not stop.is_set():
        try:
            accepted += client.execute_command("WINLIMIT.SLIDE", key, W, LIMIT)[0]
            if accepted % 10 == 0 and client.execute_command("WAIT", 1, 1000) == 1:
                confirmed[key] = accepted
        except redis.ConnectionError:
            return


def test_units_confirmed_by_wait_survive_a_promotion_and_limits_stay_exact(start_server):
    master = start_server()
    replica = start_server(args=["--replicaof", "127.0.0.1", str(master.port)])
    replica.wait_replica_synced()
    keys = ["a", "b"]
    confirmed = {key: 0 for key in keys}
    stop = threading.Event()
    threads = [threading.Thread(target=writer, args=(master, key, confirmed, stop)) for key in keys]
    for t in threads:
        t.start()
    # Promote once both writers have had some of their units confirmed, while they go on.
    wait_until(lambda: all(confirmed[key] >= 200 for key in keys), timeout=30, what="confirmed units")
    promoted_with = dict(confirmed)
    replica.client.execute_command("REPLICAOF", "NO", "ONE")  # promotion while clients write
    stop.set()
    for t in threads:
        t.join(10)
    r = replica.client
    for key in keys:
        found = r.zcard(key)
        print(f"failover {key}: confirmed by WAIT {promoted_with[key]}, counted on the new master {found}")
        assert promoted_with[key] > 0
        assert found >= promoted_with[key]
        # The new master limits exactly from what it holds.
        assert call(r, "slide", key, W, found + 3)[:3] == (1, found + 3, 2)
        assert [call(r, "slide", key, W, found + 3).allowed for _ in range(3)] == [1, 1, 0]
