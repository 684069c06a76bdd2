"""The client over redis-py's RedisCluster, sync and asyncio, on a real 3-master cluster
(tests/cluster.py): every method and option reaches the node that serves its key."""

import pytest
from redis.crc import key_slot

from conftest import MODULE, cluster_limiter_over, module_cluster

W = 60_000
# name: (call, remaining after one call, after two), each call with every option of its method.
CALLS = {
    "slide": (lambda lim, key, **kw: lim.slide(key, W, 2, **kw), 1, 0),
    "slide-pairs-cost": (lambda lim, key, **kw: lim.slide(key, [(1000, 4), (W, 10)], cost=2, **kw), 2, 0),
    "slide-bucket": (lambda lim, key, **kw: lim.slide(key, W, 2, bucket=1000, **kw), 1, 0),
    "fixed-align-cost": (lambda lim, key, **kw: lim.fixed(key, 10**12, 4, cost=2, align=True, **kw), 2, 0),
    "gcra-burst-cost": (lambda lim, key, **kw: lim.gcra(key, W, 100, burst=4, cost=2, **kw), 2, 0),
}
# Keys spread over the slots of all three masters.
KEYS = [f"user:{i}" for i in range(24)]


cluster = module_cluster(MODULE)


@pytest.fixture
def cluster_limiter(cluster, flavour):
    for node in cluster.nodes:
        node.client.flushall()
    with cluster_limiter_over(flavour, cluster.nodes[0].port) as lim:
        yield lim


def test_the_keys_span_every_master(cluster):
    assert {cluster.owner(key_slot(k.encode())).port for k in KEYS} == {n.port for n in cluster.nodes}


@pytest.mark.parametrize("name", list(CALLS))
def test_every_method_writes_on_the_node_serving_its_key(cluster, cluster_limiter, name):
    call, after_one, after_two = CALLS[name]
    for key in KEYS:
        assert [(d.allowed, d.remaining) for d in (call(cluster_limiter, key), call(cluster_limiter, key))] == [
            (True, after_one), (True, after_two)]
        slot = key_slot(key.encode())
        owner = cluster.owner(slot)
        assert owner.client.exists(key) == 1
        # The other masters hold nothing in the key's slot (they would answer -MOVED to it).
        assert [n.client.execute_command("CLUSTER COUNTKEYSINSLOT", slot)
                for n in cluster.nodes if n is not owner] == [0, 0]


@pytest.mark.parametrize("name", list(CALLS))
def test_every_peek_reads_the_node_serving_its_key_and_records_nothing(cluster, cluster_limiter, name):
    call, after_one, after_two = CALLS[name]
    for key in KEYS:
        call(cluster_limiter, key)
        assert call(cluster_limiter, key, peek=True).remaining == after_one
        assert call(cluster_limiter, key).remaining == after_two
