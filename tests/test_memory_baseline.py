"""After a load of many short-window keys, every key expires and memory returns to its
baseline."""

import time

from kit import editions
from kit.support import wait_until


KEYS = 20_000
# Long enough that no key expires before the peak is read, mostly; the library's calls are
# slower (20,000 EVALSHA take over a second on Redis 6.2). A try that lost keys goes again
# with twice the window.
WINDOW = 3000 if editions.LIBRARY else 1000


def load(r, window):
    """KEYS calls of every shape on keys of `window` ms (the ring's buckets a fiftieth of it, so
    a doubled window stays within BUCKET's range); the replies, and DBSIZE and the memory
    INFO read in the same pipeline right after the last call (a separate INFO after parsing
    20,000 replies came late enough, on a loaded machine, that most keys had expired)."""
    shapes = [("WINLIMIT.SLIDE", window, 5), ("WINLIMIT.FIXED", window, 5),
              ("WINLIMIT.SLIDE", window, 5, "BUCKET", window // 50), ("WINLIMIT.GCRA", window, 5)]
    pipe = r.pipeline(transaction=False)
    for i in range(KEYS):
        command, *args = shapes[i % len(shapes)]
        pipe.execute_command(command, f"k:{i}", *args, "COST", 2)
    pipe.dbsize()
    pipe.info("memory")
    *replies, keys, memory = pipe.execute()
    return replies, keys, memory


def test_short_window_keys_expire_and_memory_returns_to_baseline(start_server):
    s = start_server(args=["--hz", "100"])
    r = s.client
    r.set("warm-up", 1)
    r.delete("warm-up")
    baseline = r.info("memory")["used_memory"]
    window = WINDOW
    while True:
        started = time.monotonic()
        replies, keys, memory = load(r, window)
        if keys == KEYS:
            break
        # Some keys expired before the peak was read (a loaded machine): again, twice as long.
        wait_until(lambda: r.dbsize() == 0, what="every key of the short try to expire")
        window *= 2
    assert all(reply[0] == 1 for reply in replies)
    peak = memory["used_memory"]
    wait_until(lambda: r.dbsize() == 0, what="every key to expire")
    expired_after = time.monotonic() - started
    wait_until(lambda: r.info("memory")["used_memory"] <= baseline + 256 * 1024,
               what="used_memory back at its baseline")
    after = r.info("memory")["used_memory"]
    print(f"memory: baseline {baseline} B, peak {peak} B with {KEYS} keys, "
          f"all expired after {expired_after:.2f} s, then {after} B")
    assert peak > baseline + 1024 * 1024
