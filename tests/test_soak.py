"""Replica soak: a mixed random load of every command on a master with the module and AOF,
then a replica without the module, and the master restarted from its AOF without the
module, hold exactly the master's data."""

import random
import threading
import time

import redis

from kit.aof import aof_bytes
from kit.keyspace import snapshot
from kit.server import wait_replica_offset
from kit.support import wait_until


SHORT = [150, 300]          # keys that trim, expire and vanish during the soak
LONG = [60_000, 120_000]    # keys that are still there when the datasets are compared
ALIGNED_LONG = 10**12       # FIXED ALIGN on a long window: one that ends in 2033, not during the comparison
LOAD_SECONDS = 3.0


def pairs(rng, window):
    """One to three window_ms limit pairs, the smallest `window`."""
    out = [window, rng.randint(1, 8)]
    for factor, extra in ((2, 0.4), (4, 0.3)):
        if rng.random() < extra:
            out += [window * factor, rng.randint(2, 8 * factor)]
    return out


def fixed_window(rng, window):
    """A short window, ALIGNed or not, or a long one; a long ALIGNed window must not end
    while the datasets are compared (a minute's would, once a minute)."""
    if window in SHORT:
        return [window, rng.randint(1, 8), *(["ALIGN"] if rng.random() < 0.5 else [])]
    if rng.random() < 0.5:
        return [ALIGNED_LONG, rng.randint(1, 8), "ALIGN"]
    return [window, rng.randint(1, 8)]


def gcra_args(rng, window):
    """A GCRA key lives until its bucket is full again: period / limit per unit taken, so a
    long key's period is 60 x its window name, which outlives the comparison."""
    period = window if window in SHORT else window * 60
    limit = rng.randint(1, 8)
    return [period, limit, *(["BURST", rng.randint(1, 2 * limit)] if rng.random() < 0.5 else [])]


# The command shapes of the soak, one per key prefix: (command, args after the key).
SHAPES = {
    "s": lambda rng, window: ("WINLIMIT.SLIDE", pairs(rng, window)),
    "b": lambda rng, window: ("WINLIMIT.SLIDE", pairs(rng, window) + ["BUCKET", window // 10]),
    "f": lambda rng, window: ("WINLIMIT.FIXED", fixed_window(rng, window)),
    "g": lambda rng, window: ("WINLIMIT.GCRA", gcra_args(rng, window)),
}


def random_call(rng):
    """One random WINLIMIT call: any shape, 15 % _RO, 30 % with COST; the key's name holds
    its (smallest) window, so a key of a short window is known to expire."""
    window = rng.choice(SHORT + LONG)
    prefix = rng.choice(sorted(SHAPES))
    key = f"{prefix}:{window}:{rng.randrange(20)}"
    command, args = SHAPES[prefix](rng, window)
    ro = "_RO" if rng.random() < 0.15 else ""
    cost = ["COST", rng.randint(1, 3)] if rng.random() < 0.3 else []
    return [command + ro, key, *args, *cost]


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
    # A soak of fewer than a thousand calls proves little; a loaded machine needs longer for them.
    wait_until(lambda: counts["calls"] > 1000 or counts["errors"], what="a thousand calls of load")
    stop.set()
    for t in threads:
        t.join(10)
    # Let every short-window key expire on the master (its DELs reach the replica).
    wait_until(lambda: not any(k.split(b":")[1] in (b"150", b"300") for k in master.client.keys()),
               what="the short-window keys to expire")
    assert master.client.execute_command("WAIT", 1, 5000) == 1
    wait_replica_offset(master, replica)
    compared_from = time.monotonic()
    expected = snapshot(master.client, dump=True)
    assert counts["calls"] > 1000 and counts["errors"] == 0
    assert {key[:1] for key in expected} == {b"s", b"b", b"f", b"g"}
    assert snapshot(replica.client, dump=True) == expected
    aof = aof_bytes(master)
    master.restart(module=False)
    assert snapshot(master.client, dump=True) == expected
    print(f"soak: {counts['calls']} calls, {counts['errors']} errors, {len(expected)} keys left, "
          f"{aof} AOF bytes, compared in {(time.monotonic() - compared_from) * 1000:.0f} ms")
