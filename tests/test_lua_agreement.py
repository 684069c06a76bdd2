"""Fresh-key agreement between the module and the winlimit library (lua/winlimit.lua; the
Redis 6.x script built from it on 6.2): thousands of random argument lists, edges of every
range included, each called on a fresh key by both on one server. Both answer the same five
integers, or the same error, and leave the same value and expiry; only beyond the library's
exact range (README "Without the module") may the library give its range error instead, and
then it writes nothing.

A call and its twin run back to back between two TIMEs: where both TIMEs fall in one ms the
answers must be equal (a fresh key's reply depends on the arguments and the clock only);
a pair that straddles a ms is run again."""

import random

import pytest
import redis

from kit import editions
from kit.keyspace import pexpiretime
from kit.lua_library import Library
from kit.server import REDIS_62

pytestmark = editions.module_only("it loads the module and the library itself, on one server: one run, in the module edition")

RANGE_ERROR = "exact range of the winlimit library"
CASES = 3000
ROUNDS = 6
SLOW_TRIES = 20  # a case that straddled a ms in every round, tried alone this often
DAY = 86_400_000
MAX = 10**12

WINDOWS = [1, 2, 7, 999, 1000, 1001, 60_000, DAY, 30 * DAY, MAX - 1, MAX]
NOT_INTEGERS = ["007", "-0", "+1", "1e3", "0x10", " 12", "12 ", "", "abc", "1.5", "\x00\r\n", "\xe9t\xe9",
                "\xff\xfe" * 40, str(2**63), str(-2**63 - 1)]
OUT_OF_RANGE = [0, -1, MAX + 1, 2**53, 2**53 + 1, 2**63 - 1, -2**63]
LIMITS = [0, 1, 2, 3, 5, 10, 99, 9_999, 10_000, 10_001, 10**6, MAX, MAX + 1, 2**53 + 1]
COSTS = [1, 1, 2, 3, 5, 10, 9_999, 10_000, 10_001, 10**6, MAX, 2**53 + 1, 2**63 - 1, 0, -1, "x", "007"]
WORDS = ["cost", "Cost", "BUCKET", "bucket", "ALIGN", "align", "BURST", "burst", "WAIT", "5", "-5", "é\x01",
         "REFUND", "refund", "BLOCK", "Block"]
# Values with a word: COST's pool serves REFUND and BLOCK too (1 to 10^12, and past it).
VALUED = ("COST", "BUCKET", "BURST", "REFUND", "BLOCK")


def pick(rng, good, bad_share=0.08):
    """A value from `good` mostly, else one that is not an integer or out of range."""
    roll = rng.random()
    if roll < bad_share / 2:
        return rng.choice(NOT_INTEGERS)
    if roll < bad_share:
        return rng.choice(OUT_OF_RANGE)
    return rng.choice(good)


def window(rng):
    return pick(rng, WINDOWS + [rng.randrange(1, MAX + 1), rng.randrange(1, 120_000)])


def extras(rng, words):
    """Options: well formed mostly, sometimes repeated, missing a value, or unknown."""
    out = []
    for _ in range(rng.choice([0, 0, 1, 1, 2, 3])):
        word = rng.choice(words)
        out.append(word)
        if word.upper() in VALUED and rng.random() < 0.95:
            out.append(None)  # the value, filled in by the caller, who knows the windows
    return out


def slide_args(rng):
    pairs = rng.choice([1, 1, 1, 2, 2, 3, 8, 9])
    windows = [window(rng) for _ in range(pairs)]
    bucketed = rng.random() < 0.4
    ints = [w for w in windows if isinstance(w, int) and 1 <= w <= MAX] or [1000]
    smallest, largest = min(ints), max(ints)
    least = -(-largest // 1000)
    limit_pool = LIMITS if bucketed else [0, 1, 2, 3, 5, 10, 100, 9_999, 10_000, 10_001]
    args = []
    for w in windows:
        args += [w, pick(rng, limit_pool + [rng.randrange(0, 10_001)])]
    options = extras(rng, WORDS)
    if bucketed and "BUCKET" not in [str(o).upper() for o in options]:
        options += ["BUCKET", None]
    buckets = [1, smallest, least, least - 1, smallest + 1, rng.randrange(1, smallest + 1),
               rng.randrange(least, max(least, smallest) + 1)]
    for o in options:
        if o is None:
            previous = str(args[-1]).upper()
            args.append(pick(rng, buckets) if previous == "BUCKET" else pick(rng, COSTS))
        else:
            args.append(o)
    return args


def fixed_args(rng):
    args = [window(rng), pick(rng, LIMITS + [rng.randrange(0, MAX + 1)])]
    if rng.random() < 0.05:
        args += [window(rng), 5]
    for o in extras(rng, WORDS + ["ALIGN", "ALIGN"]):
        args.append(pick(rng, COSTS) if o is None else o)
    return args


def gcra_args(rng):
    period = pick(rng, [1, 2, 1000, 60_000, 3_600_000, 30 * DAY, 30 * DAY + 1, MAX, rng.randrange(1, 30 * DAY)])
    limit = pick(rng, [1, 2, 3, 7, 10, 1000, 10**6, 10**6 + 1, 10**9, MAX, rng.randrange(1, 10**6)])
    args = [period, limit]
    for o in extras(rng, WORDS + ["BURST", "BURST"]):
        if o is None:
            args.append(pick(rng, COSTS + [1, 2, 7, 10**6, 10**6 + 1, rng.randrange(1, 10**6)]))
        else:
            args.append(o)
    return args


COMMANDS = [("winlimit.slide", slide_args), ("winlimit.slide_ro", slide_args), ("winlimit.fixed", fixed_args),
            ("winlimit.fixed_ro", fixed_args), ("winlimit.gcra", gcra_args), ("winlimit.gcra_ro", gcra_args)]


def within_exact_range(command, args):
    """Whether README promises exact answers for these arguments: everything for SLIDE, BUCKET
    and FIXED; GCRA with period_ms up to 30 days and limit, BURST and COST up to 10^6."""
    if "gcra" not in command:
        return True
    words = [str(a).upper() for a in args]
    numbers = [args[0], args[1]] + [args[i + 1] for i, w in enumerate(words[:-1]) if w in ("BURST", "COST")]
    small = all(isinstance(n, int) and n <= 10**6 for n in numbers[1:])
    return isinstance(args[0], int) and args[0] <= 30 * DAY and small


def state_reads(pipe, key):
    pipe.dump(key)
    if REDIS_62:
        pipe.pttl(key)
    else:
        pipe.execute_command("PEXPIRETIME", key)


def outcome(reply):
    if isinstance(reply, Exception):
        return ("error", type(reply).__name__, str(reply))
    return ("reply", list(reply))


def run_round(r, library, cases, tag):
    """Runs every case once; returns the cases whose two calls straddled a ms, and the
    disagreements seen within one ms."""
    pipe = r.pipeline(transaction=False)
    for i, (command, args) in enumerate(cases):
        module_key, library_key = f"{tag}:{i}:m", f"{tag}:{i}:l"
        pipe.time()
        pipe.execute_command(command, module_key, *args)
        pipe.execute_command(*library.args(command, library_key, *args))
        state_reads(pipe, module_key)
        state_reads(pipe, library_key)
        pipe.time()  # after the reads too: a key written to expire 1 ms later may be gone next ms
    results = pipe.execute(raise_on_error=False)
    again, wrong = [], []
    for i, case in enumerate(cases):
        before, module, lib, m_dump, m_exp, l_dump, l_exp, after = results[8 * i:8 * i + 8]
        same_ms = before[0] * 1000 + before[1] // 1000 == after[0] * 1000 + after[1] // 1000
        if isinstance(lib, redis.ResponseError) and RANGE_ERROR in str(lib):
            if within_exact_range(*case) or l_dump is not None:
                wrong.append((case, outcome(module), outcome(lib), "range error within the promised range"))
            continue
        if outcome(module) == outcome(lib) and m_dump == l_dump and m_exp == l_exp:
            continue
        if same_ms:
            wrong.append((case, outcome(module), outcome(lib), (m_dump == l_dump, m_exp, l_exp)))
        else:
            again.append(case)
    return again, wrong


@pytest.fixture
def library(r):
    return Library(r, scripts=REDIS_62)


def test_fresh_keys_get_the_same_answers_errors_and_state_from_module_and_library(r, library):
    rng = random.Random(25)
    cases = []
    for _ in range(CASES):
        command, make = rng.choice(COMMANDS)
        cases.append((command, make(rng)))
    kinds = {}
    for round_no in range(ROUNDS):
        cases_left, wrong = [], []
        for start in range(0, len(cases), 250):
            again, bad = run_round(r, library, cases[start:start + 250], f"r{round_no}:{start}")
            cases_left += again
            wrong += bad
            r.flushall()
        assert not wrong, wrong[:5]
        if round_no == 0:
            kinds = {"cases": len(cases), "straddled a ms": len(cases_left)}
        cases = cases_left
        if not cases:
            break
    # What still straddled a ms is tried alone (a loaded machine is slow for any call); a
    # large COST on the exact log takes more than a ms every time: its logs are compared
    # relative to their own time (every score is the call's ms; the expiry follows from it).
    for case in cases:
        for _ in range(SLOW_TRIES):
            again, wrong = run_round(r, library, [case], "slow")
            r.flushall()
            assert not wrong, wrong
            if not again:
                break
        else:
            command, args = case
            module = r.execute_command(command, "slow:m", *args)
            lib = library.call(r, command, "slow:l", *args)
            assert module == lib, case
            assert relative_log(r, "slow:m") == relative_log(r, "slow:l"), case
            r.flushall()
    print(f"agreement: {kinds}")


def relative_log(r, key):
    """An exact log with its scores and expiry counted from its newest score."""
    entries = r.zrange(key, 0, -1, withscores=True)
    assert entries and r.type(key) == b"zset"
    newest = max(score for _, score in entries)
    return [(m, s - newest) for m, s in entries], pexpiretime(r, key) - newest


def test_the_random_cases_cover_errors_verdicts_and_the_range_error(r, library):
    """The generator reaches every kind of outcome, so the agreement above means something."""
    rng = random.Random(25)
    seen = set()
    pipe = r.pipeline(transaction=False)
    cases = []
    for _ in range(600):
        command, make = rng.choice(COMMANDS)
        cases.append((command, make(rng)))
        pipe.execute_command(*library.args(command, f"k{len(cases)}", *cases[-1][1]))
    for (command, _args), reply in zip(cases, pipe.execute(raise_on_error=False)):
        if isinstance(reply, Exception):
            seen.add("range" if RANGE_ERROR in str(reply) else "error")
        else:
            seen.add(("allowed" if reply[0] else "rejected", command.split(".")[1].removesuffix("_ro")))
    for kind in ["error", "range"] + [(a, c) for a in ("allowed", "rejected") for c in ("slide", "fixed", "gcra")]:
        assert kind in seen, kind
