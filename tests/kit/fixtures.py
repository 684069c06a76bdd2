"""pytest fixtures shared by the module's integration tests and the Python client's tests:
real redis-server processes with the module, stopped by PID."""

import pytest

from kit.server import RedisServer



def module_server(**kw):
    """A fixture: one server started with these RedisServer kwargs per test module."""

    @pytest.fixture(scope="module")
    def fixture():
        s = RedisServer(**kw)
        yield s
        s.stop()

    return fixture


server = module_server()


@pytest.fixture
def r(server):
    server.client.flushall()
    return server.client


@pytest.fixture
def start_server():
    """Factory: start_server(**RedisServer kwargs); every server it starts is stopped after the test."""
    started = []

    def start(**kw):
        s = RedisServer(**kw)
        started.append(s)
        return s

    yield start
    for s in reversed(started):
        s.stop()
