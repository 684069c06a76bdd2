"""The suite's hostile keys (test_hostile_data.prepare: anything a user could write with core
commands) through the library: where the module refuses a key, the library refuses it with
the same error and leaves it untouched; where the module answers, the library answers the
same and stores the same, or (for values beyond its exact range) gives its range error and
leaves the key untouched."""

import time

import redis

from kit import editions
from kit.keyspace import copy_key, pexpiretime
from kit.lua_library import Library
from kit.ready import READY_TIMEOUT
from kit.server import REDIS_62
from test_hostile_data import COMMANDS, prepare

pytestmark = editions.module_only("it loads the module and the library itself, on one server: one run, in the module edition")

RANGE_ERROR = "exact range of the winlimit library"
# A case runs again until its two calls share a ms. Only the cases that straddled one run again,
# so rounds are cheap; they go on until READY_TIMEOUT, because on a loaded machine (the suites
# run side by side) a 1 MB member's calls straddle a ms many rounds in a row.


def state(r, key):
    return r.dump(key), pexpiretime(r, key)


def ms(time_reply):
    return time_reply[0] * 1000 + time_reply[1] // 1000


def one_round(r, library, cases):
    """Runs each (key, command) on two copies of the key, module and library; returns the cases
    to run again (their calls straddled a ms) and the outcomes counted."""
    again, counts = [], {"same error": 0, "same verdict": 0, "range error": 0}
    for key, (command, *args) in cases:
        m, lib = b"m:" + key, b"l:" + key
        r.delete(m, lib)
        copy_key(r, key, m)
        copy_key(r, key, lib)
        before = state(r, lib)
        pipe = r.pipeline(transaction=False)
        pipe.time()
        pipe.execute_command(command, m, *args)
        pipe.execute_command(*library.args(command, lib, *args))
        # The second TIME brackets the two calls only: DUMPs of a 50,000-member log come after,
        # so they do not stretch a try past its ms.
        pipe.time().dump(m).dump(lib)
        t0, module_reply, library_reply, t1, m_dump, l_dump = pipe.execute(raise_on_error=False)
        if isinstance(module_reply, redis.ResponseError):
            assert str(library_reply) == str(module_reply), (key, command, module_reply, library_reply)
            assert state(r, lib) == before, (key, command)
            counts["same error"] += 1
        elif isinstance(library_reply, redis.ResponseError):
            assert RANGE_ERROR in str(library_reply), (key, command, module_reply, library_reply)
            assert state(r, lib) == before, (key, command)
            counts["range error"] += 1
        elif module_reply == library_reply and m_dump == l_dump:
            counts["same verdict"] += 1
        else:
            assert ms(t0) != ms(t1), (key, command, module_reply, library_reply)
            again.append((key, (command, *args)))
    return again, counts


def test_hostile_keys_get_the_modules_errors_and_verdicts_from_the_library(r):
    library = Library(r, scripts=REDIS_62)
    prepare(r)
    cases = [(key, command) for key in sorted(r.keys()) for command in COMMANDS]
    totals = None
    deadline = time.monotonic() + READY_TIMEOUT
    while cases and time.monotonic() < deadline:
        cases, counts = one_round(r, library, cases)
        totals = totals or counts
        # The next round's keys as fresh as the first's: z:large's 50,000 members age out of the
        # window one a ms, so each second a round waits its calls trim a thousand more, and a
        # try that straddled a ms would straddle more often the longer it ran.
        prepare(r)
    assert not cases, cases[:3]
    print(f"hostile keys through the library: {totals}")
    assert totals["same error"] > 20 and totals["same verdict"] > 20
