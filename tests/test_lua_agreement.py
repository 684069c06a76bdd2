"""Fresh-key agreement between the module and the winlimit library (lua/winlimit.lua; the
Redis 6.x script built from it on 6.2): thousands of random argument lists, edges of every
range included, each called on a fresh key by both on one server. Both answer the same five
integers, or the same error, and leave the same value and expiry; the library's range error
(docs/getting-started/managed.md, "Exact ranges") is for hand-written states only, never for these. Then GCRA
states the module wrote, copied to a second key, are called with a changed limit, period or
BURST, quotas up to 10^12 per period, by the module on one copy and the library on the other.

A call and its twin run back to back between two TIMEs: where both TIMEs fall in one ms the
answers must be equal (a fresh key's reply depends on the arguments and the clock only);
a pair that straddles a ms is run again."""

import random

import pytest
import redis

from kit import editions
from kit.keyspace import copy_key, pexpiretime
from kit.lua_library import Library
from kit.server import REDIS_60, REDIS_62

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
    prepare = r.pipeline(transaction=False)
    for i, (_, _, *setup) in enumerate(cases):
        for calls in setup:  # a state the module writes, copied for the library
            for args in calls:
                prepare.execute_command("winlimit.gcra", f"{tag}:{i}:m", *args)
            if not REDIS_60:
                prepare.copy(f"{tag}:{i}:m", f"{tag}:{i}:l")
    for reply in prepare.execute(raise_on_error=False):
        assert not isinstance(reply, Exception), reply
    if REDIS_60:  # no COPY: DUMP and RESTORE at the same absolute expiry
        for i, (_, _, *setup) in enumerate(cases):
            if setup:
                copy_key(r, f"{tag}:{i}:m", f"{tag}:{i}:l")
    pipe = r.pipeline(transaction=False)
    for i, (command, args, *_) in enumerate(cases):
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
            wrong.append((case, outcome(module), outcome(lib), "the range error on a state the module writes"))
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
    agree(r, library, cases)


def agree(r, library, cases):
    """Every case answered alike by both, with the same state after (rounds until each ran
    within one ms)."""
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


def test_the_random_cases_cover_errors_and_verdicts_and_never_the_range_error(r, library):
    """The generator reaches every kind of outcome, so the agreement above means something;
    a fresh key is never beyond the library's exact range."""
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
    for kind in ["error"] + [(a, c) for a in ("allowed", "rejected") for c in ("slide", "fixed", "gcra")]:
        assert kind in seen, kind
    assert "range" not in seen


# GCRA states the module writes, then called with a changed limit: quotas up to 10^12 per
# period, where a TAT rescaled to the new limit and BURST * period_ms pass 2^53.
QUOTA_PERIODS = [1, 1000, 60_000, 3_600_000, DAY, 30 * DAY, MAX]
CHANGED_CASES = 1500


def quota(rng):
    return rng.choice([rng.randrange(1, 1000), rng.randrange(1, 10**6), 10**6, rng.randrange(1, 10**9),
                       rng.randrange(1, MAX + 1), MAX])


def max_burst(limit, period):
    return min(MAX * limit // period, MAX)


def gcra_call(rng, period, limit, recording, cost_share=0.5):
    """Valid GCRA arguments: sometimes BURST (up to its bound), then COST (up to the burst
    and one past it), REFUND (past 2^53 too) or BLOCK."""
    args, burst = [period, limit], limit
    if rng.random() < 0.4:
        top = max_burst(limit, period)
        burst = rng.choice([1, 2, rng.randrange(1, top + 1), top])
        args += ["BURST", burst]
    roll = rng.random()
    if roll < cost_share:
        args += ["COST", rng.choice([1, burst, burst, rng.randrange(1, burst + 1), burst + 1])]
    elif roll < cost_share + 0.15 and recording:
        args += ["REFUND", rng.choice([1, 2, rng.randrange(1, MAX), 2**53 + 1, 2**63 - 1])]
    elif roll < cost_share + 0.3 and recording:
        args += ["BLOCK", rng.choice([1, 1000, DAY, rng.randrange(1, MAX + 1), MAX])]
    return args


def changed_limit_case(rng):
    """(command, args, the module's calls that write the state first)."""
    period, limit = rng.choice(QUOTA_PERIODS + [rng.randrange(1, MAX + 1)]), quota(rng)
    setup = [gcra_call(rng, period, limit, True, cost_share=0.8) for _ in range(rng.choice([1, 1, 2, 3]))]
    if rng.random() < 0.3:
        period = rng.choice(QUOTA_PERIODS + [rng.randrange(1, MAX + 1)])
    command = rng.choice(["winlimit.gcra", "winlimit.gcra", "winlimit.gcra_ro"])
    return command, gcra_call(rng, period, quota(rng), command == "winlimit.gcra"), setup


def test_gcra_states_called_with_a_changed_limit_get_the_modules_answer(r, library):
    rng = random.Random(37)
    cases = [("winlimit.gcra", [114_099_294, 641_936, "BURST", 1], [[DAY, 10**6, "COST", 10**6]]),
             ("winlimit.gcra", [DAY, 10**9, "BURST", 10**9], [[DAY, 10**9, "COST", 10**9]]),
             ("winlimit.gcra", [MAX, MAX, "BLOCK", MAX], [[MAX, 7, "COST", 7]])]
    cases += [changed_limit_case(rng) for _ in range(CHANGED_CASES)]
    agree(r, library, cases)


def test_the_changed_limit_cases_reach_a_rescaled_tat_past_2_53(r, library):
    """The cases above mean something: many states hold a TAT ahead of now whose rescaling to
    the new limit passes 2^53 (TAT ms ahead * new limit), and every kind of verdict comes up."""
    rng = random.Random(37)
    cases = [changed_limit_case(rng) for _ in range(CHANGED_CASES)]
    past, seen = 0, set()
    for i, (command, args, setup) in enumerate(cases):
        for calls in setup:
            r.execute_command("winlimit.gcra", f"c{i}", *calls)
        value = r.get(f"c{i}")
        if value is not None and value.startswith(b"gcra:"):
            ms, _, den = (int(x) for x in value.split(b":")[1:4])
            ahead = ms - r.time()[0] * 1000
            if den != args[1] and ahead > 0 and ahead * args[1] >= 2**53:
                past += 1
        reply = library.call(r, command, f"c{i}", *args)
        seen.add(("allowed" if reply[0] else "rejected", command))
    assert past >= 50, past
    assert seen == {(a, c) for a in ("allowed", "rejected") for c in ("winlimit.gcra", "winlimit.gcra_ro")}
