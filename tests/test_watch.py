"""WATCH sees a WINLIMIT call as a write only when it writes, like core commands: for every
row of the kit's table and each of its valid shapes (its sample and variants)."""

import pytest
import redis

from kit import commands


# (row, arguments after the key): every valid call of every row; the limit is second.
SHAPES = [(c, args) for c in commands.DEFAULT for args in (c.sample, *c.variants)]
IDS = [" ".join(map(str, [c.short, *args])) for c, args in SHAPES]


def fill(r, command, key, args):
    """Call until a call is rejected: the key is full, and tidy (a rejection changes nothing)."""
    for _ in range(20):
        if r.execute_command(command.name, key, *args)[0] == 0:
            return
    raise AssertionError(f"{command.name} {args} accepted 20 calls")


def transaction_after(r, key, command, args):
    """WATCH key, let another client call the command, then try a transaction."""
    watcher = redis.Redis(port=r.connection_pool.connection_kwargs["port"])
    try:
        pipe = watcher.pipeline()
        pipe.watch(key)
        r.execute_command(command.name, key, *args)
        pipe.multi()
        pipe.set("marker", "1")
        pipe.execute()
        return True
    except redis.WatchError:
        return False
    finally:
        watcher.close()


@pytest.mark.parametrize("command,args", [s for s in SHAPES if s[0].writes],
                         ids=[i for i, s in zip(IDS, SHAPES) if s[0].writes])
def test_an_accepted_call_aborts_transactions_watching_the_key(r, command, args):
    r.execute_command(command.name, "k", *args)  # the key exists, with room left
    assert transaction_after(r, "k", command, args) is False


@pytest.mark.parametrize("command,args", [s for s in SHAPES if s[0].writes],
                         ids=[i for i, s in zip(IDS, SHAPES) if s[0].writes])
def test_a_rejected_call_leaves_watchers_alone(r, command, args):
    fill(r, command, "k", args)
    assert transaction_after(r, "k", command, args) is True


@pytest.mark.parametrize("command,args", [s for s in SHAPES if not s[0].writes],
                         ids=[i for i, s in zip(IDS, SHAPES) if not s[0].writes])
def test_a_reader_leaves_watchers_alone(r, command, args):
    r.execute_command(command.partner, "k", *args)  # the key exists, written by the partner
    assert transaction_after(r, "k", command, args) is True
