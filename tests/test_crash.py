"""Crash durability: kill -9 under load, restart from the AOF, count what was kept."""

import threading
import time

import redis

from harness import server_ms

W = 3_600_000          # nothing leaves a window during the test
GCRA_PERIOD = 10**12   # with limit 10^6: one unit per 10^6 ms, so nothing refills either
GCRA_LIMIT = 10**6
SHAPES = {
    "slide": ("WINLIMIT.SLIDE", W, 10**4),
    "fixed": ("WINLIMIT.FIXED", W, 10**9),
    "bucket": ("WINLIMIT.SLIDE", W, 10**9, "BUCKET", 60_000),
    "gcra": ("WINLIMIT.GCRA", GCRA_PERIOD, GCRA_LIMIT, "BURST", GCRA_LIMIT),
}
CLIENTS = 4
LOAD_SECONDS = 1.0


def hammer(server, key, shape, acked, in_flight, stop):
    """Call until the server dies; count acknowledged acceptances and the call in flight."""
    client = server.new_client()
    command, *args = shape
    while not stop.is_set():
        in_flight[key] += 1
        try:
            reply = client.execute_command(command, key, *args)
        except (redis.ConnectionError, redis.TimeoutError):
            return
        in_flight[key] -= 1
        acked[key] += reply[0]


def recorded(r, name, key, started_ms):
    """Units the restarted server holds for the key."""
    if name == "slide":
        return r.zcard(key)
    if name == "fixed":
        return int(r.get(key) or 0)
    if name == "bucket":
        return int(r.hget(key, "total") or 0)
    value = r.get(key)
    if value is None:
        return 0
    tat_ms = int(value.split(b":")[1])
    unit_ms = GCRA_PERIOD // GCRA_LIMIT
    return round((tat_ms - started_ms) / unit_ms)


def crash_under_load(start_server, fsync):
    s = start_server(args=["--appendonly", "yes", "--appendfsync", fsync])
    started_ms = server_ms(s.client)
    keys = [(name, f"{name}:{i}") for name in SHAPES for i in range(CLIENTS // 2)]
    acked = {key: 0 for _, key in keys}
    in_flight = {key: 0 for _, key in keys}
    stop = threading.Event()
    threads = [threading.Thread(target=hammer, args=(s, key, SHAPES[name], acked, in_flight, stop))
               for name, key in keys]
    for t in threads:
        t.start()
    time.sleep(LOAD_SECONDS)
    s.proc.kill()  # SIGKILL, by PID
    s.proc.wait()
    stop.set()
    for t in threads:
        t.join(10)
    s.restart()
    found = {key: recorded(s.client, name, key, started_ms) for name, key in keys}
    return keys, acked, in_flight, found


def test_appendfsync_always_keeps_every_acknowledged_unit(start_server):
    keys, acked, in_flight, found = crash_under_load(start_server, "always")
    for name, key in keys:
        print(f"crash always {key}: acknowledged {acked[key]}, in flight {in_flight[key]}, found {found[key]}")
        assert acked[key] > 0, key
        assert acked[key] <= found[key] <= acked[key] + in_flight[key], key


def test_appendfsync_everysec_loses_nothing_acknowledged_when_only_the_process_dies(start_server):
    """Redis writes the AOF before it replies; `everysec` only delays the fsync, so a killed
    process loses nothing acknowledged (a lost machine can lose the last second or two)."""
    keys, acked, in_flight, found = crash_under_load(start_server, "everysec")
    total_acked = sum(acked.values())
    lost = sum(max(0, acked[key] - found[key]) for _, key in keys)
    print(f"crash everysec: acknowledged {total_acked}, lost {lost}")
    for _, key in keys:
        assert acked[key] <= found[key] <= acked[key] + in_flight[key], key
