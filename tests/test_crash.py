"""Crash durability: kill -9 under load, restart from the AOF, count what was kept."""

import threading
import time

from kit.durability import SHAPES, Tally, hammer, recorded
from kit.keyspace import server_ms
from kit.ready import wait_until


CLIENTS_PER_SHAPE = 2   # one key each: 8 clients hammering SLIDE, FIXED, BUCKET and GCRA
LOAD_SECONDS = 1.0
# Under `everysec`, while a background fsync still runs (a busy disk) the server postpones
# writing its AOF for up to two seconds and replies meanwhile: what was acknowledged longer
# ago than this before the kill has been written (two seconds, and a margin for a late
# event loop on a loaded machine).
POSTPONED_SECONDS = 3.0


def crash_under_load(start_server, fsync, then_seconds=0.0):
    """Hammer every shape, SIGKILL the server (by PID) mid-load, restart it from its AOF.
    With then_seconds, each key's acknowledged units are noted after LOAD_SECONDS and the
    load goes on that much longer before the kill. Returns [(name, key, tally, units
    acknowledged at the note, units found after the restart)]."""
    s = start_server(args=["--appendonly", "yes", "--appendfsync", fsync])
    started_ms = server_ms(s.client)
    keys = [(name, f"{name}:{i}", Tally()) for name in SHAPES for i in range(CLIENTS_PER_SHAPE)]
    stop = threading.Event()
    threads = [threading.Thread(target=hammer, args=(s, name, key, tally, stop)) for name, key, tally in keys]
    for t in threads:
        t.start()
    # A loaded machine may not schedule every client within LOAD_SECONDS: the load runs until
    # each has had a unit acknowledged (or stopped, to show its error), then LOAD_SECONDS more.
    wait_until(lambda: all(tally.acked or not t.is_alive() for (*_, tally), t in zip(keys, threads)),
               what="a first acknowledged unit per client")
    time.sleep(LOAD_SECONDS)
    noted = [tally.acked for _, _, tally in keys]
    time.sleep(then_seconds)
    s.proc.kill()  # SIGKILL, by PID
    s.proc.wait()
    stop.set()
    for t in threads:
        t.join(10)
    s.restart()
    return [(name, key, tally, early, recorded(s.client, name, key, started_ms))
            for (name, key, tally), early in zip(keys, noted)]


def test_appendfsync_always_keeps_every_acknowledged_unit(start_server):
    for _name, key, tally, _, found in crash_under_load(start_server, "always"):
        print(f"crash always {key}: acknowledged {tally.acked}, in flight {tally.in_flight}, found {found}")
        assert tally.error is None and tally.acked > 0, (key, tally.error)
        assert tally.acked <= found <= tally.acked + tally.in_flight, key


def test_appendfsync_everysec_keeps_what_was_acknowledged_two_seconds_before_the_process_died(start_server):
    """`everysec` delays the fsync, and while one is slow (a busy disk) it postpones the
    write too, for up to two seconds, replying meanwhile: a killed process keeps every unit
    acknowledged before that, and never one that was not sent (a lost machine can lose the
    last second or two as well, which no test here can simulate)."""
    results = crash_under_load(start_server, "everysec", then_seconds=POSTPONED_SECONDS)
    acked = sum(tally.acked for _, _, tally, _, _ in results)
    found = sum(found for *_, found in results)
    lost = sum(max(0, tally.acked - found) for _, _, tally, _, found in results)
    print(f"crash everysec: acknowledged {acked}, found {found}, lost {lost}")
    for _, key, tally, early, found in results:
        assert tally.error is None and early > 0, (key, tally.error)
        assert early <= found <= tally.acked + tally.in_flight, key
