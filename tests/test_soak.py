"""Replica soak: a mixed random load of every command on a master with the module and AOF,
then a replica without the module, and the master restarted from its AOF without the
module, hold exactly the master's data."""

import random
import threading
import time

import redis

from harness import snapshot, wait_replica_offset

SHORT = [150, 300]          # keys that trim, expire and vanish during the soak
LONG = [60_000, 120_000]    # keys that are still there when the datasets are compared
LOAD_SECONDS = 3.0


def random_call(rng):
    """One random WINLIMIT call: any command, _RO, COST, several windows, BUCKET, GCRA."""
    window = rng.choice(SHORT + LONG)
    key = f"{rng.choice('sfbg')}:{window}:{rng.randrange(20)}"
    cost = ["COST", rng.randint(1, 3)] if rng.random() < 0.3 else []
    ro = "_RO" if rng.random() < 0.15 else ""
    kind = key[0]
    if kind == "s":
        pairs = [window, rng.randint(1, 8)] + ([window * 4, rng.randint(4, 20)] if rng.random() < 0.4 else [])
        return ["WINLIMIT.SLIDE" + ro, key, *pairs, *cost]
    if kind == "b":
        pairs = [window, rng.randint(1, 8)] + ([window * 4, rng.randint(4, 20)] if rng.random() < 0.4 else [])
        return ["WINLIMIT.SLIDE" + ro, key, *pairs, *cost, "BUCKET", window // 10]
    if kind == "f":
        # ALIGN on short windows only: their keys end during the soak and are waited out. A
        # long aligned window ends on a minute boundary, which fell between the compared
        # snapshots now and then (keys gone from one of them).
        align = ["ALIGN"] if window in SHORT and rng.random() < 0.5 else []
        return ["WINLIMIT.FIXED" + ro, key, window, rng.randint(1, 8), *cost, *align]
    return ["WINLIMIT.GCRA" + ro, key, window, rng.randint(1, 8), *cost]


def load(client, seed, stop, counts):
    rng = random.Random(seed)
    while not stop.is_set():
        try:
            client.execute_command(*random_call(rng))
            counts["calls"] += 1
        except redis.ResponseError:
            counts["errors"] += 1


def test_replica_without_module_and_aof_replay_end_identical(start_server):
    master = start_server(args=["--appendonly", "yes"])
    replica = start_server(module=False, args=["--replicaof", "127.0.0.1", str(master.port)])
    replica.wait_replica_synced()
    stop = threading.Event()
    counts = {"calls": 0, "errors": 0}
    threads = [threading.Thread(target=load, args=(master.new_client(), seed, stop, counts)) for seed in (1, 2)]
    for t in threads:
        t.start()
    time.sleep(LOAD_SECONDS)
    stop.set()
    for t in threads:
        t.join(10)
    # Let every short-window key expire on the master (its DELs reach the replica).
    deadline = time.monotonic() + 10
    while any(k.split(b":")[1] in (b"150", b"300") for k in master.client.keys()):
        assert time.monotonic() < deadline, "short-window keys did not expire"
        time.sleep(0.05)
    assert master.client.execute_command("WAIT", 1, 5000) == 1
    wait_replica_offset(master, replica)
    expected = snapshot(master.client, dump=True)
    print(f"soak: {counts['calls']} calls, {counts['errors']} errors, {len(expected)} keys left")
    assert counts["calls"] > 1000 and counts["errors"] == 0
    assert len(expected) > 20
    assert snapshot(replica.client, dump=True) == expected
    master.restart(module=False)
    assert snapshot(master.client, dump=True) == expected
