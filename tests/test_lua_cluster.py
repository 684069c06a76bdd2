"""The library on a cluster: loaded on every primary (FUNCTION LOAD, or SCRIPT LOAD on 6.2), a
cluster client's FCALL (EVALSHA) reaches the key's owner and answers as on one server."""

import pytest

from kit import editions
from kit.cluster import Cluster
from kit.lua_library import Library
from kit.server import REDIS_62

pytestmark = editions.module_only("it loads the library itself: one run, in the module edition")

HOUR = 3_600_000


@pytest.fixture
def cluster():
    c = Cluster(masters=3, module=False)
    yield c
    c.stop()


def test_the_library_loaded_on_every_primary_serves_keys_in_every_slot(cluster):
    libraries = [Library(node.client, scripts=REDIS_62) for node in cluster.nodes]
    assert len({getattr(lib, "sha", None) for lib in libraries}) == 1
    client = cluster.client()
    keys = [f"user:{i}" for i in range(30)]
    owners = {cluster.owner(client.keyslot(key)).port for key in keys}
    assert len(owners) == 3, "the keys must cover every primary"
    for key in keys:
        for command in ("winlimit.slide", "winlimit.fixed", "winlimit.gcra"):
            replies = [libraries[0].call(client, command, f"{{{key}}}:{command}", HOUR, 2) for _ in range(3)]
            assert [(r[0], r[2]) for r in replies] == [(1, 1), (1, 0), (0, 0)], (key, command, replies)
    for key in keys:
        owner = cluster.owner(client.keyslot(key))
        assert owner.client.exists(f"{{{key}}}:winlimit.slide") == 1
