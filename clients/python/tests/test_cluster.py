"""The client over redis-py's RedisCluster (sync and asyncio) on a real 3-master cluster."""

import asyncio

import pytest
from redis.asyncio.cluster import RedisCluster as AsyncRedisCluster
from redis.cluster import RedisCluster

import winlimit
import winlimit.asyncio
from cluster import Cluster

W = 60_000


@pytest.fixture(scope="module")
def cluster():
    c = Cluster(masters=3)
    yield c
    c.stop()


def test_every_method_routes_to_the_keys_node(cluster):
    rc = RedisCluster(host="127.0.0.1", port=cluster.nodes[0].port)
    try:
        limiter = winlimit.Limiter(rc)
        for i in range(30):
            key = f"client:{i}"
            assert [limiter.slide(key, W, 2).allowed for _ in range(3)] == [True, True, False]
            assert limiter.fixed(key + ":f", W, 1).allowed and limiter.gcra(key + ":g", W, 1).allowed
    finally:
        rc.close()


def test_asyncio_cluster_client(cluster):
    async def run():
        rc = AsyncRedisCluster(host="127.0.0.1", port=cluster.nodes[0].port)
        try:
            limiter = winlimit.asyncio.Limiter(rc)
            return [(await limiter.slide(f"a:{i}", W, 1, bucket=1000)).allowed for i in range(20)]
        finally:
            await rc.aclose()

    assert asyncio.run(run()) == [True] * 20
