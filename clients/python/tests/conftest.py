"""Fixtures: real redis-server processes from the repository's test harness."""

import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "tests"))

import harness  # noqa: E402


@pytest.fixture(scope="session")
def server():
    s = harness.RedisServer()
    yield s
    s.stop()


@pytest.fixture
def r(server):
    server.client.flushall()
    return server.client


@pytest.fixture
def start_server():
    started = []

    def start(**kw):
        s = harness.RedisServer(**kw)
        started.append(s)
        return s

    yield start
    for s in reversed(started):
        s.stop()
