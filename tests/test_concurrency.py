"""Many clients at once on one key: the limit is never exceeded (the seed's race)."""

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from kit.commands import call


W = 60000
THREADS = 16
CALLS_PER_THREAD = 40


def hammer(server, *args):
    """THREADS threads, each with its own connection, start together and call CALLS_PER_THREAD times."""
    barrier = threading.Barrier(THREADS)

    def worker():
        client = server.new_client()
        try:
            barrier.wait()
            return [call(client, *args) for _ in range(CALLS_PER_THREAD)]
        finally:
            client.close()

    with ThreadPoolExecutor(THREADS) as pool:
        futures = [pool.submit(worker) for _ in range(THREADS)]
        return [rep for f in futures for rep in f.result()]


@pytest.mark.parametrize("command", ["slide", "fixed"])
def test_parallel_clients_get_exactly_limit_accepted(server, r, command):
    limit = 100
    replies = hammer(server, command, "k", W, limit)
    accepted = [x for x in replies if x.allowed]
    assert len(replies) == THREADS * CALLS_PER_THREAD
    assert len(accepted) == limit
    assert sorted(x.remaining for x in accepted) == list(range(limit))
    stored = r.zcard("k") if command == "slide" else int(r.get("k"))
    assert stored == limit


@pytest.mark.parametrize("command", ["slide", "fixed"])
def test_parallel_clients_with_cost_never_exceed_limit(server, r, command):
    limit, cost = 100, 3
    replies = hammer(server, command, "k", W, limit, "COST", cost)
    accepted = [x for x in replies if x.allowed]
    assert len(accepted) == limit // cost
    assert min(x.remaining for x in accepted) == limit % cost
    stored = r.zcard("k") if command == "slide" else int(r.get("k"))
    assert stored == cost * (limit // cost)
