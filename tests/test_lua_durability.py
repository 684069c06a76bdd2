"""What the library writes is replicated as effects: a replica, and an AOF replay, with neither
the module nor the library (nor the script, on 6.2) end identical to the primary after a mixed
load; and the read-only functions answer on a replica."""

import random

from kit import editions
from kit.keyspace import snapshot
from kit.lua_library import Library
from kit.server import REDIS_62, wait_replica_offset
from kit.support import wait_until

pytestmark = editions.module_only("it loads the module and the library itself, on one server: one run, in the module edition")

HOUR = 3_600_000

# Short windows and periods make the load trim, discard and expire; every key then gets one
# call with an hour-long window, so the keyspace holds still while it is compared (a bucketed
# key keeps its bucket length: hour-long bucketed keys get a load of their own).
SHORT = [
    ("winlimit.slide", (20, 3)), ("winlimit.slide", (10, 2, 40, 5, "COST", 2)),
    ("winlimit.slide", (40, 6, "BUCKET", 5)), ("winlimit.slide", (20, 3, 60, 8, "BUCKET", 10, "COST", 2)),
    ("winlimit.fixed", (30, 4)), ("winlimit.fixed", (25, 3, "ALIGN", "COST", 2)),
    ("winlimit.gcra", (40, 4)), ("winlimit.gcra", (50, 3, "BURST", 7, "COST", 2)),
    ("winlimit.slide_ro", (20, 3)), ("winlimit.fixed_ro", (30, 4)), ("winlimit.gcra_ro", (40, 4)),
]
LONG = {"slide": (HOUR, 50), "fixed": (HOUR, 50), "gcra": (HOUR, 50)}
LONG_BUCKETED = [(HOUR, 40, "BUCKET", 3600), (600_000, 20, HOUR, 40, "BUCKET", 3600, "COST", 3)]


def kind_of(command, args):
    name = command.split(".")[1].removesuffix("_ro")
    return "bucket" if "BUCKET" in args else name


def mixed_load(r, library, rounds=1500):
    """Calls spread over 15 keys, each key one algorithm (and bucket length), by the module and
    the library at random."""
    rng = random.Random(7)
    keys = {}
    by_either = lambda *call: (r.execute_command(*call) if rng.random() < 0.5  # noqa: E731
                               else library.call(r, *call))
    for _ in range(rounds):
        command, args = rng.choice(SHORT)
        kind = kind_of(command, args)
        key = f"{kind}:{args[args.index('BUCKET') + 1] if kind == 'bucket' else ''}:{rng.randrange(3)}"
        keys[key] = kind
        by_either(command, key, *args)
    for key, kind in keys.items():
        if kind != "bucket":
            library.call(r, f"winlimit.{kind}", key, *LONG[kind])
    for _ in range(200):
        key = f"long-bucket:{rng.randrange(3)}"
        keys[key] = "bucket"
        by_either("winlimit.slide", key, *rng.choice(LONG_BUCKETED))
    return keys


def short_lived_keys_gone(r):
    """Keys the load left with a short expiry (FIXED windows) have expired, on the primary."""
    return all(r.pttl(key) in (-2, -1) or r.pttl(key) > 60_000 for key in r.keys())


def test_replica_and_aof_replay_without_module_or_library_end_identical(start_server):
    master = start_server(args=["--appendonly", "yes"])
    replica = start_server(module=False, args=["--replicaof", "127.0.0.1", str(master.port)])
    replica.wait_replica_synced()
    r = master.client
    library = Library(r, scripts=REDIS_62)
    keys = mixed_load(r, library)
    assert len(keys) >= 10
    wait_until(lambda: short_lived_keys_gone(r), what="the load's short FIXED windows to end")
    assert r.execute_command("WAIT", 1, 5000) == 1
    wait_replica_offset(master, replica)
    expected = snapshot(r, dump=True)
    assert len(expected) >= 8
    assert snapshot(replica.client, dump=True) == expected
    master.restart(module=False)
    assert snapshot(master.client, dump=True) == expected


def test_the_read_only_functions_answer_on_a_replica(start_server):
    master = start_server()
    replica = start_server(module=False, args=["--replicaof", "127.0.0.1", str(master.port)])
    replica.wait_replica_synced()
    r = master.client
    library = Library(r, scripts=REDIS_62)
    # The library (FUNCTION LOAD) reaches the replica by replication; a script must be loaded there.
    on_replica = Library(replica.client, scripts=True) if REDIS_62 else library
    for _ in range(3):
        library.call(r, "winlimit.slide", "s", HOUR, 5)
        library.call(r, "winlimit.fixed", "f", HOUR, 5)
        library.call(r, "winlimit.gcra", "g", HOUR, 5)
    wait_replica_offset(master, replica)
    for command in ("winlimit.slide_ro", "winlimit.fixed_ro", "winlimit.gcra_ro"):
        key = command.split(".")[1][0]
        reply = on_replica.call(replica.client, command, key, HOUR, 5)
        assert reply[:4] == [1, 5, 2, 0], (command, reply)
    # A recording function is refused there: the replica is read-only.
    assert_refused_on_replica(on_replica, replica.client)


def assert_refused_on_replica(library, client):
    try:
        library.call(client, "winlimit.slide", "s", HOUR, 5)
    except Exception as e:  # redis-py raises ReadOnlyError or ResponseError, by version
        assert "READONLY" in str(e) or "read only" in str(e) or "replica" in str(e), e
    else:
        raise AssertionError("a recording call succeeded on a read-only replica")
