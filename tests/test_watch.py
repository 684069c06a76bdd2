"""WATCH sees a WINLIMIT call as a write only when it writes, like core commands."""

import pytest
import redis

from kit import commands
from kit.commands import call


WRITE_CALLS = {
    "slide accepted": ("slide", 60000, 5),
    "bucket accepted": ("slide", 60000, 5, "BUCKET", 1000),
    "gcra accepted": ("gcra", 60000, 5),
    "fixed accepted": ("fixed", 60000, 5),
}
QUIET_CALLS = {
    "slide rejected": ("slide", 60000, 1),
    "bucket rejected": ("slide", 60000, 1, "BUCKET", 1000),
    "bucket_ro": ("slide_ro", 60000, 5, "BUCKET", 1000),
    "gcra rejected": ("gcra", 60000, 1),
    "gcra_ro": ("gcra_ro", 60000, 5),
    "fixed rejected": ("fixed", 60000, 1),
    "slide_ro": ("slide_ro", 60000, 5),
    "fixed_ro": ("fixed_ro", 60000, 5),
}


def test_every_command_of_the_kits_table_has_a_case():
    covered = {case[0] for case in [*WRITE_CALLS.values(), *QUIET_CALLS.values()]}
    assert covered == {c.short for c in commands.DEFAULT}


def transaction_after(r, key, command, window, limit, *options):
    """WATCH key, let another client call the command, then try a transaction."""
    watcher = redis.Redis(port=r.connection_pool.connection_kwargs["port"])
    try:
        pipe = watcher.pipeline()
        pipe.watch(key)
        call(r, command, key, window, limit, *options)
        pipe.multi()
        pipe.set("marker", "1")
        pipe.execute()
        return True
    except redis.WatchError:
        return False
    finally:
        watcher.close()


@pytest.mark.parametrize("shape", WRITE_CALLS.values(), ids=WRITE_CALLS.keys())
def test_a_call_that_writes_aborts_transactions_watching_the_key(r, shape):
    command, window, limit, *options = shape
    algorithm = command.split("_")[0]
    call(r, algorithm, "k", window, limit, *options)  # the key exists, with room left
    assert transaction_after(r, "k", command, window, limit, *options) is False


@pytest.mark.parametrize("shape", QUIET_CALLS.values(), ids=QUIET_CALLS.keys())
def test_a_call_that_writes_nothing_leaves_watchers_alone(r, shape):
    command, window, limit, *options = shape
    algorithm = command.split("_")[0]
    call(r, algorithm, "k", window, 1, *options)  # full under limit 1, tidy: a rejection changes nothing
    assert transaction_after(r, "k", command, window, limit, *options) is True
