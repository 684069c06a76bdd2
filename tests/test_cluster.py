"""Redis Cluster: a real 3-master cluster on loopback, every node loading the module, driven
through redis-py's RedisCluster configured as a user would (one startup node, nothing else).

RedisCluster learns key positions from the server: at start it runs COMMAND and, for a
command its built-in tables do not know (WINLIMIT.*), takes first/last/step from it
(COMMAND GETKEYS only for `movablekeys` commands). So routing works only if the module
declares its key at position 1.
"""

import os
import uuid

import pytest
from redis.crc import key_slot

from kit.cluster import Cluster
from kit.commands import Reply
from kit import commands, editions
from kit.support import W
from kit.errors import error_of

HOUR = 3_600_000


COMMANDS = [c.short for c in commands.DEFAULT]


@pytest.fixture(scope="module")
def cluster():
    c = Cluster(masters=3)
    pids = [n.pid for n in c.nodes]
    yield c
    c.stop()
    # Each node was stopped and reaped by PID: none is left running.
    assert [pid for pid in pids if os.path.exists(f"/proc/{pid}")] == []


@pytest.fixture
def rc(cluster):
    client = cluster.client()
    yield client
    client.close()


def wl(client, command, *args):
    return Reply._make(client.execute_command("WINLIMIT." + command.upper(), *args))


def unique_prefix():
    return f"rl:{uuid.uuid4().hex[:8]}:"


def one_key_per_slot(prefix):
    """A key name for every one of the 16384 slots."""
    keys = {}
    i = 0
    while len(keys) < 16384:
        name = f"{prefix}{i}".encode()
        keys.setdefault(key_slot(name), name)
        i += 1
    return [keys[s] for s in range(16384)]


def owner_ports(cluster):
    """slot -> port of the node serving it (one CLUSTER SLOTS call)."""
    return cluster.slot_owners(cluster.nodes[0])


def holders(cluster, key):
    """Ports of the nodes that hold `key` (CLUSTER GETKEYSINSLOT answers on any node,
    where a plain read of a key on a node not serving it would get -MOVED)."""
    key = key.decode() if isinstance(key, bytes) else key
    slot = key_slot(key.encode())

    def held(n):
        return [k.decode() if isinstance(k, bytes) else k
                for k in n.client.execute_command("CLUSTER GETKEYSINSLOT", slot, 10000)]

    return [n.port for n in cluster.nodes if key in held(n)]


@pytest.mark.parametrize("command,extra", [
    ("slide", []), ("slide", ["COST", 2]), ("slide", [2 * W, 9, "COST", 2]), ("slide", ["BUCKET", 1000]),
    ("fixed", ["COST", 2, "ALIGN"]), ("fixed", ["ALIGN"]),
    ("slide_ro", ["COST", 3]), ("fixed_ro", ["ALIGN", "COST", 3])])
@editions.module_only("COMMAND GETKEYS reads the module's key specs; FCALL's keys are its numkeys")
def test_command_getkeys_returns_the_one_key(cluster, command, extra):
    r = cluster.nodes[0].client
    assert r.command_getkeys("WINLIMIT." + command.upper(), "rl:k", W, 5, *extra) == ["rl:k"]


@pytest.mark.parametrize("command", COMMANDS)
def test_node_not_serving_the_key_answers_moved_and_writes_nothing(cluster, command):
    key = unique_prefix() + "moved"
    slot = key_slot(key.encode())
    owner = cluster.owner(slot)
    wrong = next(n for n in cluster.nodes if n is not owner)
    assert error_of(wrong.port, "WINLIMIT." + command.upper(), key, W, 5) == \
        f"MOVED {slot} 127.0.0.1:{owner.port}"
    assert holders(cluster, key) == []


@pytest.mark.parametrize("command", COMMANDS)
def test_cluster_client_runs_each_command_on_the_node_serving_its_key(cluster, rc, command):
    prefix = unique_prefix()
    keys = [f"{prefix}{i}" for i in range(30)]
    owners = owner_ports(cluster)
    assert {owners[key_slot(k.encode())] for k in keys} == {n.port for n in cluster.nodes}
    read_only = command.endswith("_ro")
    for key in keys:
        assert wl(rc, command, key, W, 5)[:3] == (1, 5, 5 if read_only else 4)
        expected = [] if read_only else [owners[key_slot(key.encode())]]
        assert holders(cluster, key) == expected


@pytest.mark.parametrize("command, options", [("slide", ["BUCKET", 1000]), ("slide", [2 * W, 9]), ("gcra", [])],
                         ids=["bucket", "two-windows", "gcra"])
def test_cluster_client_limits_bucketed_multi_window_and_gcra_keys_on_their_node(cluster, rc, command, options):
    prefix = unique_prefix()
    owners = owner_ports(cluster)
    for key in [f"{prefix}{i}" for i in range(20)]:
        assert [wl(rc, command, key, W, 3, *options).allowed for _ in range(4)] == [1, 1, 1, 0]
        assert holders(cluster, key) == [owners[key_slot(key.encode())]]


def test_every_key_limited_exactly_one_call_at_a_time(cluster, rc):
    prefix = unique_prefix()
    keys = [f"{prefix}{i}" for i in range(150)]
    owners = owner_ports(cluster)
    per_node = {n.port: 0 for n in cluster.nodes}
    for i, key in enumerate(keys):
        command = "slide" if i % 2 else "fixed"
        allowed = [wl(rc, command, key, W, 3).allowed for _ in range(5)]
        assert allowed == [1, 1, 1, 0, 0], key
        assert wl(rc, command + "_ro", key, W, 3)[:3] == (0, 3, 0)
        per_node[owners[key_slot(key.encode())]] += 1
    assert all(count > 0 for count in per_node.values()), per_node


def test_every_slot_limited_exactly_through_a_cluster_pipeline(cluster, rc):
    """One key in each of the 16384 slots, SLIDE on even slots and FIXED on odd ones,
    limit 2 and three calls each: exactly two accepted per key, stored on its node. The window
    is an hour: three pipelines of 16384 calls took over a minute on a loaded machine."""
    keys = one_key_per_slot(unique_prefix())
    command = {k: "WINLIMIT.SLIDE" if key_slot(k) % 2 == 0 else "WINLIMIT.FIXED" for k in keys}
    replies = []
    for _ in range(3):
        pipe = rc.pipeline(transaction=False)
        for k in keys:
            pipe.execute_command(command[k], k, HOUR, 2)
        replies.append(pipe.execute())
    for i, k in enumerate(keys):
        assert [replies[n][i][0] for n in range(3)] == [1, 1, 0], k
    owners = owner_ports(cluster)
    for node in cluster.nodes:
        owned = [k for k in keys if owners[key_slot(k)] == node.port]
        assert owned
        pipe = node.client.pipeline(transaction=False)
        for k in owned:
            pipe.zcard(k) if command[k] == "WINLIMIT.SLIDE" else pipe.get(k)
        assert all(v in (2, b"2") for v in pipe.execute())


def pick_slot_with_key(cluster, prefix):
    key = prefix + "migrating"
    slot = key_slot(key.encode())
    src = cluster.owner(slot)
    dst = next(n for n in cluster.nodes if n is not src)
    return key, slot, src, dst


@pytest.mark.parametrize("command", ["slide", "fixed"])
def test_cluster_client_follows_moved_after_slot_migration_and_keeps_counting(cluster, rc, command):
    key, slot, src, dst = pick_slot_with_key(cluster, unique_prefix())
    assert [wl(rc, command, key, W, 10).allowed for _ in range(6)] == [1] * 6
    cluster.migrate_slot_keys(slot, src, dst)
    cluster.finish_slot_migration(slot, dst)
    # rc still maps the slot to src: src answers -MOVED and the client retries on dst.
    assert rc.get_node_from_key(key).port == src.port
    assert [wl(rc, command, key, W, 10).allowed for _ in range(6)] == [1, 1, 1, 1, 0, 0]
    assert rc.get_node_from_key(key).port == dst.port
    assert holders(cluster, key) == [dst.port]


@pytest.mark.parametrize("command", ["slide", "fixed"])
def test_cluster_client_follows_ask_during_slot_migration(cluster, rc, command):
    key, slot, src, dst = pick_slot_with_key(cluster, unique_prefix())
    assert [wl(rc, command, key, W, 10).allowed for _ in range(6)] == [1] * 6
    cluster.migrate_slot_keys(slot, src, dst)
    try:
        assert error_of(src.port, "WINLIMIT." + command.upper(), key, W, 10) == \
            f"ASK {slot} 127.0.0.1:{dst.port}"
        assert [wl(rc, command, key, W, 10).allowed for _ in range(6)] == [1, 1, 1, 1, 0, 0]
        assert wl(rc, command + "_ro", key, W, 10)[:3] == (0, 10, 0)
        assert holders(cluster, key) == [dst.port]
    finally:
        cluster.finish_slot_migration(slot, dst)


def test_no_node_holds_a_key_of_a_slot_it_does_not_serve(cluster, rc):
    """Whatever the tests above wrote: every key sits on the node serving its slot."""
    for i in range(60):
        wl(rc, COMMANDS[i % len(COMMANDS)], f"{unique_prefix()}{i}", W, 5)
    owners = owner_ports(cluster)
    for node in cluster.nodes:
        misplaced = [k for k in node.client.scan_iter(count=1000) if owners[key_slot(k)] != node.port]
        assert misplaced == []
