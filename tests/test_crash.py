"""Crash durability: kill -9 under load, restart from the AOF, count what was kept."""

import threading
import time

from kit.durability import SHAPES, Tally, hammer, recorded
from kit.keyspace import server_ms


CLIENTS_PER_SHAPE = 2   # one key each: 8 clients hammering SLIDE, FIXED, BUCKET and GCRA
LOAD_SECONDS = 1.0


def crash_under_load(start_server, fsync):
    """Hammer every shape, SIGKILL the server (by PID) mid-load, restart it from its AOF.
    Returns [(name, key, tally, units found after the restart)]."""
    s = start_server(args=["--appendonly", "yes", "--appendfsync", fsync])
    started_ms = server_ms(s.client)
    keys = [(name, f"{name}:{i}", Tally()) for name in SHAPES for i in range(CLIENTS_PER_SHAPE)]
    stop = threading.Event()
    threads = [threading.Thread(target=hammer, args=(s, name, key, tally, stop)) for name, key, tally in keys]
    for t in threads:
        t.start()
    time.sleep(LOAD_SECONDS)
    s.proc.kill()  # SIGKILL, by PID
    s.proc.wait()
    stop.set()
    for t in threads:
        t.join(10)
    s.restart()
    return [(name, key, tally, recorded(s.client, name, key, started_ms)) for name, key, tally in keys]


def test_appendfsync_always_keeps_every_acknowledged_unit(start_server):
    for name, key, tally, found in crash_under_load(start_server, "always"):
        print(f"crash always {key}: acknowledged {tally.acked}, in flight {tally.in_flight}, found {found}")
        assert tally.error is None and tally.acked > 0, (key, tally.error)
        assert tally.acked <= found <= tally.acked + tally.in_flight, key


def test_appendfsync_everysec_loses_nothing_acknowledged_when_only_the_process_dies(start_server):
    """Redis writes the AOF before it replies; `everysec` only delays the fsync, so a killed
    process loses nothing acknowledged (a lost machine can lose the last second or two,
    which no test here can simulate: the kernel keeps what the process wrote)."""
    results = crash_under_load(start_server, "everysec")
    acked = sum(tally.acked for _, _, tally, _ in results)
    found = sum(found for _, _, _, found in results)
    lost = sum(max(0, tally.acked - found) for _, _, tally, found in results)
    print(f"crash everysec: acknowledged {acked}, found {found}, lost {lost}")
    for _, key, tally, found in results:
        assert tally.error is None and tally.acked > 0, (key, tally.error)
        assert tally.acked <= found <= tally.acked + tally.in_flight, key
