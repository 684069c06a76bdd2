"""The Grafana dashboard and the Prometheus rules (docs/grafana, docs/prometheus) query only
what this client exports: after real decisions against a real redis-server (allowed and
rejected) and a fallback's (a port nothing listens on), winlimit.metrics.Metrics is served
by prometheus_client's own HTTP server, scraped by a real HTTP client, and every metric and
label of clients/spec/dashboard_queries.json (extracted from the queries by
scripts/dashboard_queries.py) is in the scrape."""

import httpx
import pytest
import redis
from prometheus_client import CollectorRegistry, start_http_server
from prometheus_client.parser import text_string_to_metric_families
from redis.backoff import NoBackoff
from redis.retry import Retry

import winlimit
import winlimit.memory
from conftest import BACKEND
from kit.ready import CALL_TIMEOUT
from kit.server import free_port
from shared_spec import load
from winlimit.metrics import Metrics

QUERIED = load("dashboard_queries.json")
W = 60_000


def decide(port, metrics, **kw):
    """Three calls to a limit of two: one policy's allowed and rejected decisions (or the
    fallback's, where nothing listens on `port`)."""
    client = redis.Redis(port=port, retry=Retry(NoBackoff(), 0), socket_timeout=CALL_TIMEOUT)
    try:
        limiter = winlimit.Limiter(client, metrics=metrics, backend=BACKEND, timeout=None, **kw)
        return [limiter.fixed("user:1", W, 2, name="api").allowed for _ in range(3)]
    finally:
        client.close()


def scrape(registry):
    """The samples (name, labels) of the registry served over HTTP."""
    port = free_port()
    http_server, thread = start_http_server(port, addr="127.0.0.1", registry=registry)
    try:
        text = httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=CALL_TIMEOUT).text
    finally:
        http_server.shutdown()
        thread.join()
    return [(sample.name, sample.labels) for family in text_string_to_metric_families(text)
            for sample in family.samples]


@pytest.fixture(scope="module")
def samples(server):
    registry = CollectorRegistry()
    metrics = Metrics(registry)
    assert decide(server.port, metrics) == [True, True, False]
    assert decide(free_port(), metrics, failures=1, fallback=winlimit.memory.Limiter()) == [True, True, False]
    return scrape(registry)


@pytest.fixture(scope="module")
def exported(samples):
    """{sample name: every label name it carries}."""
    names = {}
    for name, labels in samples:
        names.setdefault(name, set()).update(labels)
    return names


def test_the_scrape_holds_allowed_rejected_and_fallback_decisions(samples):
    outcomes = {labels["outcome"] for name, labels in samples if name == "winlimit_decisions_total"}
    assert outcomes == {"allowed", "rejected", "fallback"}


def test_the_scrape_holds_the_open_breaker(samples):
    assert ("winlimit_breaker_state", {"limiter": "winlimit"}) in samples


@pytest.mark.parametrize("metric", sorted(QUERIED))
def test_every_metric_a_query_names_is_exported(exported, metric):
    assert metric in exported


@pytest.mark.parametrize("metric", sorted(QUERIED))
def test_every_label_a_query_names_is_on_its_metric(exported, metric):
    assert set(QUERIED[metric]) <= exported.get(metric, set())
