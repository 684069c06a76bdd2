"""The examples' tests start their servers with the integration suite's kit (tests/kit): one
server with the module per test module, and a client on it, flushed for each test."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "tests"))


import pytest  # noqa: E402
import redis  # noqa: E402

from kit.server import RedisServer  # noqa: E402


@pytest.fixture(scope="module")
def server():
    server = RedisServer(module=True, edition="module")
    yield server
    server.stop()


@pytest.fixture
def client(server):
    client = redis.Redis(port=server.port)
    client.flushall()
    yield client
    client.close()
