"""What the crash and failover tests hammer: one table of command shapes, and how many units
a key of each shape holds.

Every shape records one unit per accepted call and nothing leaves its window (or refills)
during a test, so the units a key holds are exactly the accepted calls it has seen.
"""

import redis

from kit import commands
from kit.bucket_layout import bucket_log


W = 3_600_000           # no unit leaves an hour's window during a test
# GCRA: one unit refills per 10^6 ms, so nothing does; a BURST of 10^6 holds every unit a
# test takes. Within the library's exact range too (BURST * period_ms = 10^15 < 2^53).
GCRA_PERIOD = 10**9
GCRA_LIMIT = 10**3
GCRA_BURST = 10**6
GCRA_UNIT_MS = GCRA_PERIOD // GCRA_LIMIT
BUCKET_MS = 60_000


def _shapes():
    """name -> (command, the state its key holds, the option that gives that state): each
    writer of the command table (clients/spec/command_table.json) the library has too, by
    its method's name, and once more with each option that changes its state (`bucket`)."""
    out = {}
    for row in commands.ROWS.values():
        if row["records"] and row["function"]:
            out[row["method"]] = (row["name"], row["state"], ())
            for option in row["options"]:
                if "state" in option:
                    out[option["client"]] = (row["name"], option["state"], (option["token"], BUCKET_MS))
    return out


_SHAPES = _shapes()
# Per state, a limit far above what a test can reach (the exact log's: winlimit.max-limit's default).
_FAR = {"log": 10**4, "ring": 10**9, "counter": 10**9, "tat": GCRA_BURST}


def with_limit(name, limit):
    """The shape's command with its limit (a TAT's: its BURST) set to `limit`: a server
    holding n units then accepts exactly limit - n more."""
    command, state, option = _SHAPES[name]
    if state == "tat":
        return (command, GCRA_PERIOD, GCRA_LIMIT, "BURST", limit)
    return (command, W, limit, *option)


# name -> (command, args after the key).
SHAPES = {name: with_limit(name, _FAR[state]) for name, (_, state, _) in _SHAPES.items()}


def recorded(r, name, key, started_ms):
    """Units the server holds for a key of shape `name`, first written after `started_ms`
    (server time). A TAT key holds its TAT: the first call's time plus one unit interval
    per unit taken; the few ms between started_ms and that call are far below an interval."""
    state = _SHAPES[name][1]
    if state == "log":
        return r.zcard(key)
    if state == "counter":
        return int(r.get(key) or 0)
    if state == "ring":
        return bucket_log(r, key)["total"] if r.exists(key) else 0
    value = r.get(key)
    if value is None:
        return 0
    tat_ms = int(value.split(b":")[1])
    return round((tat_ms - started_ms) / GCRA_UNIT_MS)


class Tally:
    """One client's count of a key: units acknowledged as accepted, units confirmed by
    `WAIT 1` (acknowledged before a WAIT that answered 1), and calls sent whose reply never
    came (0 or 1)."""

    def __init__(self):
        self.acked = 0
        self.confirmed = 0
        self.in_flight = 0
        self.error = None  # an error no test expects, for the test to show


def hammer(server, name, key, tally, stop, wait_every=0):
    """Call shape `name` on `key` until `stop` is set or the server stops taking writes (it
    died, or it became a replica). With wait_every n, after every n-th call run WAIT 1 and,
    when it answers 1, note the acknowledged units as confirmed."""
    client = server.new_client()
    command, *args = SHAPES[name]
    calls = 0
    try:
        while not stop.is_set():
            tally.in_flight = 1
            try:
                reply = client.execute_command(command, key, *args)
            except (redis.ConnectionError, redis.TimeoutError):
                return  # the reply never came: the call stays in flight
            except redis.ReadOnlyError:
                tally.in_flight = 0  # refused by a demoted master: not executed
                return
            except redis.ResponseError as e:
                tally.in_flight, tally.error = 0, f"{command}: {e}"
                return
            tally.in_flight = 0
            tally.acked += reply[0]
            calls += 1
            if wait_every and calls % wait_every == 0:
                acked = tally.acked
                try:
                    if client.execute_command("WAIT", 1, 1000) == 1:
                        tally.confirmed = acked
                except (redis.ConnectionError, redis.TimeoutError):
                    return
                except redis.ResponseError as e:
                    # A master turning into a replica unblocks a pending WAIT with an error.
                    if "UNBLOCKED" not in str(e):
                        tally.error = f"WAIT: {e}"
                    return
    finally:
        client.close()
