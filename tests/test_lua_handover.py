"""Handover between the library and the module on one key: units recorded by the library,
then by the module (loaded with MODULE LOAD after the library wrote), then by the library
again count as one budget, and the same in the other order. The limit holds exactly across
the switches, every reply is the one a single edition gives, and the stored state is what
one edition alone would have stored.

Windows and periods are an hour or more, so no unit leaves them during a test."""

import random

import pytest

from kit import editions
from kit.bucket_layout import bucket_log
from kit.lua_library import Library
from kit.keyspace import pexpiretime
from kit.ready import within_one_ms
from kit.server import IS_VALKEY, REDIS_60, REDIS_62, module_path

pytestmark = editions.module_only("it loads the module and the library itself, on one server: one run, in the module edition")

HOUR = 3_600_000
# Costs of the calls, in order; the first three go to the first edition, the next three to
# the second, the rest to the first again, past the limit.
COSTS = [1, 2, 1, 1, 2, 1, 1, 1, 1, 1, 1, 1]
SWITCH_AT = (3, 6)

# name: (command, arguments, the limits the calls are checked against)
SCENARIOS = {
    "exact log": ("winlimit.slide", (HOUR, 10), [10]),
    "several windows": ("winlimit.slide", (HOUR, 7, 2 * HOUR, 10), [7, 10]),
    "bucket": ("winlimit.slide", (HOUR, 10, "BUCKET", 60_000), [10]),
    "bucket, several windows": ("winlimit.slide", (HOUR, 6, 2 * HOUR, 10, "BUCKET", 60_000), [6, 10]),
    "fixed": ("winlimit.fixed", (HOUR, 10), [10]),
    "fixed aligned": ("winlimit.fixed", (10**12, 10, "ALIGN"), [10]),
    "gcra": ("winlimit.gcra", (HOUR, 10), [10]),
    "gcra with burst": ("winlimit.gcra", (2 * HOUR, 5, "BURST", 10), [10]),
}


@pytest.fixture
def server(start_server):
    """A server started without the module; the test loads it with MODULE LOAD."""
    allow = [] if REDIS_62 and not IS_VALKEY else ["--enable-module-command", "yes"]
    return start_server(module=False, args=allow)


def expected(limits, used, cost):
    """(allowed, remaining) when `used` units are counted and `cost` more are asked for."""
    allowed = all(used + cost <= limit for limit in limits)
    after = used + cost if allowed else used
    return allowed, min(max(limit - after, 0) for limit in limits)


def run_calls(calls, limits, used, costs):
    """Runs `calls(cost)` per cost; checks each reply against the budget; returns the units used."""
    for cost in costs:
        reply = calls(cost)
        allowed, remaining = expected(limits, used, cost)
        assert (bool(reply[0]), reply[2]) == (allowed, remaining), (used, cost, reply)
        assert reply[3] == 0 if allowed else reply[3] > 0, reply
        used += cost if allowed else 0
    return used


def check_state(r, command, args, key, used):
    """The key holds exactly `used` units, as one edition writes them."""
    if command == "winlimit.fixed":
        assert int(r.get(key)) == used
    elif command == "winlimit.gcra":
        assert r.get(key).startswith(b"gcra:") and r.get(key).endswith(b":%d" % args[1])
    elif "BUCKET" in args:
        assert bucket_log(r, key)["total"] == used
    else:
        members = sorted(m for m in r.zrange(key, 0, -1))
        assert members == [b"%d" % (1_000_000_000 + i) for i in range(used)]


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_units_count_as_one_budget_across_library_and_module_in_either_order(server, scenario):
    command, args, limits = SCENARIOS[scenario]
    r = server.client
    library = Library(r, scripts=REDIS_62)
    by_library = lambda key: lambda cost: library.call(r, command, key, *args, "COST", cost)  # noqa: E731
    by_module = lambda key: lambda cost: r.execute_command(command, key, *args, "COST", cost)  # noqa: E731
    first, second = COSTS[:SWITCH_AT[0]], COSTS[SWITCH_AT[0]:SWITCH_AT[1]]
    rest = COSTS[SWITCH_AT[1]:]

    # Library first: it writes before the module is even loaded.
    used_a = run_calls(by_library("a"), limits, 0, first)
    r.execute_command("MODULE", "LOAD", module_path())
    used_a = run_calls(by_module("a"), limits, used_a, second)
    used_a = run_calls(by_library("a"), limits, used_a, rest)
    # Module first.
    used_b = run_calls(by_module("b"), limits, 0, first)
    used_b = run_calls(by_library("b"), limits, used_b, second)
    used_b = run_calls(by_module("b"), limits, used_b, rest)

    assert used_a == used_b == min(limits)
    for key in ("a", "b"):
        check_state(r, command, args, key, min(limits))
        # Both editions read the handed-over key alike: the same peek, and the same refusal.
        peek = (command + "_ro", key, *args)
        assert r.execute_command(*peek)[:3] == library.call(r, *peek)[:3] == [0, min(limits), 0]


def test_the_exact_logs_expiry_moves_once_per_slack_whichever_edition_recorded(server):
    """The library sets the expiry the module would (newest + window + slack), and the other
    edition keeps it while it lies within the slack: no expiry write on every call."""
    r = server.client
    library = Library(r, scripts=REDIS_62)
    r.execute_command("MODULE", "LOAD", module_path())
    for first, second in [(library.call, module_call), (module_call, library.call)]:
        r.flushall()
        reply = first(r, "winlimit.slide", "log", HOUR, 10)
        newest = r.zrange("log", -1, -1, withscores=True)[0][1]
        assert pexpiretime(r, "log") == newest + HOUR + 60_000 and reply[4] == HOUR
        second(r, "winlimit.slide", "log", HOUR, 10)
        assert pexpiretime(r, "log") == newest + HOUR + 60_000


def module_call(r, command, key, *args):
    return r.execute_command(command, key, *args)


def test_a_gcra_state_written_with_another_limit_reads_alike(server):
    """A TAT written with one limit (`gcra:<ms>:<rem>:<den>`, den = that limit) is read rounded
    up by either edition under another limit within the exact range: the same reply and the
    same new state, whoever wrote it."""
    r = server.client
    library = Library(r, scripts=REDIS_62)
    r.execute_command("MODULE", "LOAD", module_path())
    for writer_limit, reader_limit in [(7, 3), (3, 7), (999_983, 10**6), (10**6, 7), (7, 999_983)]:
        for writer in ("module", "library"):
            write_gcra_state(r, library, writer, writer_limit)
            module_read, library_read = twins(
                r, library, "s", "winlimit.gcra", 86_400, reader_limit, "BURST", 10)
            assert r.exists("s"), "the written state outlived the reads"
            assert module_read == library_read, (writer, writer_limit, reader_limit)


def write_gcra_state(r, library, writer, limit):
    """`writer` records three units at `limit` per 30 days on key `s`: a TAT seconds (or days)
    ahead, which the reads under the other limit copy from. Only the reads need one ms."""
    args = (30 * 86_400_000, limit, "BURST", 10)
    r.delete("s")
    pipe = r.pipeline(transaction=False)
    for _ in range(3):
        pipe.execute_command(*(("WINLIMIT.GCRA", "s", *args) if writer == "module"
                               else library.args("winlimit.gcra", "s", *args)))
    assert [reply[0] for reply in pipe.execute()] == [1, 1, 1]


# REFUND and BLOCK across the editions: a limit of 3 in an hour, per algorithm.
EXTRAS_SCENARIOS = {
    "exact log": ("winlimit.slide", (HOUR, 3)),
    "bucket": ("winlimit.slide", (HOUR, 3, "BUCKET", 60_000)),
    "fixed": ("winlimit.fixed", (HOUR, 3)),
    "gcra": ("winlimit.gcra", (HOUR, 3)),
}
# Longer than any wait the algorithms give within an hour's window: a blocked reply's
# retry_after_ms is the time left in the block.
BLOCK_MS = 10 * HOUR
EDITIONS = ["module", "library"]


def ms_of(time_reply):
    return time_reply[0] * 1000 + time_reply[1] // 1000


def twins(r, library, source, command, *args):
    """The same call by the module on a copy of `source` and by the library on another, in one
    ms from the copies to the reads (retried until it is): (module reply, library reply), each
    with the copy's value and absolute expiry after the call. Only the server clock differs
    between runs, so within one ms both editions must answer and store alike."""
    # A loaded machine may stretch tries past a ms; each is one round trip, so few do.
    return within_one_ms(f"{command} on {source}", twins_once, r, library, source, command, *args)


def twins_once(r, library, source, command, *args):
    """One try of `twins`: None when it straddled a ms. The copies, calls and reads go in one
    pipeline between two TIMEs, so a try costs one round trip on every server."""
    r.delete("m", "l")
    if REDIS_60:  # no COPY: the source, read before the try, is RESTOREd at its absolute expiry
        at, value = pexpiretime(r, source), r.dump(source)
    pipe = r.pipeline(transaction=False)
    pipe.time()
    for key in ("m", "l"):
        if not REDIS_60:
            pipe.copy(source, key)
        elif value is not None and at != -2:  # RESTORE past its expiry creates no key, as COPY
            pipe.restore(key, max(at, 0), value, absttl=at > 0)
    pipe.execute_command(command, "m", *args)
    pipe.execute_command(*library.args(command, "l", *args))
    pipe.dump("m").dump("l")
    for key in ("m", "l"):
        pipe.pttl(key) if REDIS_62 else pipe.execute_command("PEXPIRETIME", key)
    pipe.time()
    results = pipe.execute(raise_on_error=False)
    started = results[0]
    module_reply, library_reply, m_dump, l_dump, m_exp, l_exp, ended = results[-7:]
    if ms_of(started) == ms_of(ended):
        return (module_reply, m_dump, m_exp), (library_reply, l_dump, l_exp)
    return None


@pytest.fixture
def editions_on(server):
    """The server with the library and the module loaded: a call by each edition by name."""
    r = server.client
    library = Library(r, scripts=REDIS_62)
    r.execute_command("MODULE", "LOAD", module_path())
    return r, {"module": lambda *a: r.execute_command(*a), "library": lambda *a: library.call(r, *a)}, library


@pytest.mark.parametrize("scenario", EXTRAS_SCENARIOS)
@pytest.mark.parametrize("blocker", EDITIONS)
def test_a_block_set_by_one_edition_holds_when_the_other_serves_the_key(editions_on, scenario, blocker):
    r, call, _ = editions_on
    command, args = EXTRAS_SCENARIOS[scenario]
    other = EDITIONS[1 - EDITIONS.index(blocker)]
    for _ in range(3):
        call[blocker](command, "k", *args)
    started = ms_of(r.time())
    reply = call[blocker](command, "k", *args, "BLOCK", BLOCK_MS)
    assert reply[:4] == [0, 3, 0, BLOCK_MS], "rejected, and the block's whole length to wait"
    blocked = r.dump("k")
    # The other edition, mid-block: a recording call, a BLOCK, a refund, a peek are all
    # rejected with the time left in the block, and none of them writes (nor extends it).
    for extra in ((), ("BLOCK", BLOCK_MS), ("REFUND", 3)):
        reply = call[other](command, "k", *args, *extra)
        left = BLOCK_MS - (ms_of(r.time()) - started)
        assert reply[0] == 0 and reply[2] == 0 and left <= reply[3] <= BLOCK_MS, (extra, reply)
        assert r.dump("k") == blocked, extra
    peek = call[other](command + "_ro", "k", *args)
    assert peek[0] == 0 and peek[3] >= BLOCK_MS - (ms_of(r.time()) - started)
    r.delete("k")
    assert call[other](command, "k", *args)[:3] == [1, 3, 2], "DEL lifts the block"


@pytest.mark.parametrize("scenario", EXTRAS_SCENARIOS)
@pytest.mark.parametrize("writer", EDITIONS)
def test_both_editions_block_and_serve_a_blocked_key_alike(editions_on, scenario, writer):
    """On a key at its limit written by either edition, the blocking call stores the same bytes
    and expiry in both; on the key it blocked, every call answers alike and writes nothing."""
    r, call, library = editions_on
    command, args = EXTRAS_SCENARIOS[scenario]
    for key in ("full", "blocked"):
        for _ in range(3):
            call[writer](command, key, *args)
    module, lib = twins(r, library, "full", command, *args, "BLOCK", BLOCK_MS)
    assert module == lib and module[0][:4] == [0, 3, 0, BLOCK_MS], (module, lib)
    call[writer](command, "blocked", *args, "BLOCK", BLOCK_MS)
    for extra in ((), ("COST", 2), ("BLOCK", 5), ("REFUND", 1)):
        module, lib = twins(r, library, "blocked", command, *args, *extra)
        assert module == lib and module[0][0] == 0 and module[1] == r.dump("blocked"), (extra, module, lib)


@pytest.mark.parametrize("scenario", EXTRAS_SCENARIOS)
@pytest.mark.parametrize("recorder", EDITIONS)
def test_a_refund_by_either_edition_of_units_the_other_recorded_is_the_same(editions_on, scenario, recorder):
    """Units recorded by one edition, refunded by each: the same reply (the peek that follows,
    with the units back) and the same stored bytes and expiry."""
    r, call, library = editions_on
    command, args = EXTRAS_SCENARIOS[scenario]
    call[recorder](command, "src", *args, "COST", 2)
    for n in (1, 2, 5):
        module, lib = twins(r, library, "src", command, *args, "REFUND", n)
        assert module == lib, (n, module, lib)
        assert module[0][:3] == [1, 3, min(3, 1 + n)], (n, module)


def random_scenario(rng):
    """Short windows and blocks (a few to a few hundred ms), so entries leave, windows end and
    blocks run out while a history goes on."""
    w, limit = rng.choice([5, 20, 60, 300]), rng.randint(1, 4)
    return rng.choice([
        ("winlimit.slide", (w, limit)),
        ("winlimit.slide", (w, limit, 3 * w, limit + 2)),
        ("winlimit.slide", (w, limit, "BUCKET", max(1, w // rng.choice([1, 3, 10])))),
        ("winlimit.slide", (w, limit, 3 * w, limit + 2, "BUCKET", max(1, w // 5))),
        ("winlimit.fixed", (w, limit)),
        ("winlimit.fixed", (w, limit, "ALIGN")),
        ("winlimit.gcra", (w, limit)),
        ("winlimit.gcra", (w, limit, "BURST", limit + 2)),
    ])


def random_options(rng):
    return rng.choice([(), (), ("COST", rng.randint(1, 5)), ("REFUND", rng.randint(1, 5)),
                       ("BLOCK", rng.randint(1, 40)), ("COST", rng.randint(1, 3), "BLOCK", rng.randint(1, 40))])


def test_random_histories_with_refunds_and_blocks_are_answered_and_stored_alike(editions_on):
    """Random calls with REFUND, BLOCK and COST on one key, by either edition in turn: before
    each, the same call by both on copies of the key answers and stores alike (a block started,
    in force, or ended; refunds of units either recorded)."""
    r, call, library = editions_on
    rng = random.Random(28)
    seen = set()
    for history in range(60):
        command, args = random_scenario(rng)
        r.delete("src")
        for _ in range(25):
            options = random_options(rng)
            peek = rng.random() < 0.1 and "REFUND" not in options and "BLOCK" not in options
            name = command + "_ro" if peek else command
            before = r.dump("src")
            module, lib = twins(r, library, "src", name, *args, *options)
            assert module == lib, (history, command, args, options, before, module, lib)
            if "BLOCK" in options and module[0][0] == 0 and module[0][3] == options[-1]:
                seen.add("a block started")
            if "REFUND" in options and module[1] != before:
                seen.add("a refund changed the key")
            if "BLOCK" not in options and module[0][0] == 0 and module[0][2] == 0:
                seen.add("rejected")
            call[rng.choice(EDITIONS)](name, "src", *args, *options)
    assert seen == {"a block started", "a refund changed the key", "rejected"}, seen
