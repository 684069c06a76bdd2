"""The breaker of a limiter called directly (sync and asyncio), over real servers: a call
while it is open raises BreakerOpen at once without sending, or is decided by the limiter's
fallback (the same command line, counted by source in the metrics); WRONGTYPE does not open
it; breaker=False sends every call; and on a real cluster with one node hung, only that
node's keys fall back."""

import contextlib

import pytest
import redis
import redis.asyncio
from redis.backoff import NoBackoff
from redis.retry import Retry
from prometheus_client import CollectorRegistry
from redis.crc import key_slot

import winlimit
import winlimit.memory
from conftest import BACKEND, MODULE, cluster_limiter_over, limiter_over
from kit.cluster import Cluster
from kit.ready import CALL_TIMEOUT
from kit.server import free_port
from proxy import CountingProxy
from winlimit.metrics import Metrics

W = 60_000
OPEN_MS = 30_000  # long enough not to end within a test; max_open_ms by default


def breakers(limiter):
    """The limiter's breakers (through the asyncio flavour's blocking wrapper too)."""
    return getattr(limiter, "limiter", limiter).breakers


@pytest.fixture
def make_limiter(server, flavour):
    """make_limiter(port=..., **Limiter kwargs): a limiter of this test's flavour over a client
    that does not retry (redis-py's default retries a refused connection for seconds)."""
    made = contextlib.ExitStack()

    def make(port=None, **kw):
        client = {"host": "127.0.0.1", "port": port or server.port, "retry": Retry(NoBackoff(), 0)}
        return made.enter_context(limiter_over(flavour, lambda: redis.Redis(**client),
                                               lambda: redis.asyncio.Redis(**client), **kw))

    with made:
        yield make


@pytest.fixture
def nowhere():
    """A proxy in front of a port nothing listens on: every call fails, and the proxy counts
    the connections that tried."""
    proxy = CountingProxy(free_port())
    yield proxy
    proxy.close()


def test_a_call_while_open_raises_breaker_open_without_sending(make_limiter, nowhere):
    limiter = make_limiter(port=nowhere.port, failures=2, open_ms=OPEN_MS)
    for _ in range(2):
        with pytest.raises(redis.ConnectionError) as failed:
            limiter.fixed("k", W, 5)
        assert not isinstance(failed.value, winlimit.BreakerOpen)
    tried = nowhere.connections
    with pytest.raises(winlimit.BreakerOpen) as refused:
        limiter.fixed("k", W, 5)
    assert isinstance(refused.value, redis.ConnectionError)
    assert 0 < refused.value.retry_in_ms <= OPEN_MS
    assert nowhere.connections == tried


def test_with_a_fallback_the_same_command_is_decided_in_memory_as_redis_decides_it(make_limiter, nowhere, r):
    registry = CollectorRegistry()
    limiter = make_limiter(port=nowhere.port, failures=1, open_ms=OPEN_MS, fallback=winlimit.memory.Limiter(),
                           metrics=Metrics(registry))
    by_redis = make_limiter()

    def calls(lim):
        return [lim.fixed("k", W, 3, cost=2, block_ms=W) for _ in range(2)]

    decided, expected = calls(limiter), calls(by_redis)
    assert [d.backend for d in decided] == ["memory", "memory"]
    fields = [(d.allowed, d.remaining, d.retry_after_ms) for d in expected]
    assert [(d.allowed, d.remaining, d.retry_after_ms) for d in decided] == fields
    assert fields[1][2] == W  # BLOCK reached the fallback: refused for block_ms
    assert registry.get_sample_value("winlimit_decisions_by_source_total", {"policy": "winlimit", "source": "memory"}) == 2
    assert registry.get_sample_value("winlimit_call_seconds_count", {"backend": "memory"}) == 2
    assert registry.get_sample_value("winlimit_breaker_state", {"limiter": "winlimit"}) == 2


def test_wrongtype_is_the_callers_error_and_keeps_the_breaker_closed(make_limiter, r):
    limiter = make_limiter(failures=1)
    r.hset("k", "field", "value")
    for _ in range(2):
        with pytest.raises(redis.ResponseError, match="WRONGTYPE"):
            limiter.fixed("k", W, 5)
    assert breakers(limiter).of("").state == "closed"


def test_a_disabled_breaker_sends_every_call(make_limiter, nowhere):
    limiter = make_limiter(port=nowhere.port, failures=1, breaker=False)
    for tries in range(1, 4):
        with pytest.raises(redis.ConnectionError) as failed:
            limiter.fixed("k", W, 5)
        assert not isinstance(failed.value, winlimit.BreakerOpen)
        assert nowhere.connections >= tries


@pytest.fixture
def cluster():
    made = Cluster(masters=3, module=MODULE)
    yield made
    made.stop()


def test_a_hung_cluster_node_falls_back_alone(cluster, flavour):
    keys = [f"user:{i}" for i in range(24)]
    hung = cluster.nodes[0]
    on_hung = [k for k in keys if cluster.owner(key_slot(k.encode())) is hung]
    assert on_hung and len(on_hung) < len(keys)
    # The hung node costs one timeout: its breaker opens at the first failure.
    with cluster_limiter_over(flavour, hung.port, backend=BACKEND, timeout=CALL_TIMEOUT, failures=1, open_ms=OPEN_MS,
                              fallback=winlimit.memory.Limiter()) as limiter:
        assert {limiter.fixed(k, W, 10).backend for k in keys} != {"memory"}  # every node's backend is known
        # CLIENT PAUSE stops the node answering clients, not the cluster bus: no failover.
        hung.client.execute_command("CLIENT", "PAUSE", 600_000)
        for round in range(2):
            decided = {k: limiter.fixed(k, W, 10) for k in keys}
            assert {k for k, d in decided.items() if d.backend == "memory"} == set(on_hung)
            # The fallback counts from its first call; Redis holds the call made before.
            assert {k: d.remaining for k, d in decided.items()} == {
                k: 9 - round if k in on_hung else 8 - round for k in keys}
        states = {node.port: breakers(limiter).of(f"127.0.0.1:{node.port}").state for node in cluster.nodes}
        assert states == {node.port: "open" if node is hung else "closed" for node in cluster.nodes}
