"""Fixtures for the client's tests: real redis-server processes from the repository's test
kit (tests/kit: `kit.server`, `kit.fixtures`), and every limiter test run twice, over
redis-py's sync client and over its asyncio client."""

import asyncio
import contextlib
import pytest
import redis
import redis.asyncio

import winlimit
import winlimit.asyncio

from kit.fixtures import r, server, start_server  # noqa: F401  (fixtures these tests use)
from kit.server import module_path


def pytest_sessionstart(session):
    try:
        module_path()
    except FileNotFoundError as e:
        pytest.exit(str(e), returncode=2)


class Blocking:
    """A winlimit.asyncio.Limiter driven from synchronous test code: every method runs to
    completion on one event loop, so a test reads the same for both flavours."""

    def __init__(self, limiter, loop):
        self.limiter = limiter
        self.loop = loop

    def __getattr__(self, name):
        method = getattr(self.limiter, name)

        def run(*args, **kwargs):
            return self.loop.run_until_complete(method(*args, **kwargs))

        return run


@contextlib.contextmanager
def limiter_over(flavour, sync_client, async_client, **kw):
    """A limiter of the given flavour; sync_client() / async_client() make its Redis client
    (the async one is made inside the loop it will run on)."""
    if flavour == "sync":
        client = sync_client()
        try:
            yield winlimit.Limiter(client, **kw)
        finally:
            client.close()
        return
    loop = asyncio.new_event_loop()
    try:
        client = loop.run_until_complete(_made(async_client))
        try:
            yield Blocking(winlimit.asyncio.Limiter(client, **kw), loop)
        finally:
            loop.run_until_complete(client.aclose())
    finally:
        loop.close()


async def _made(factory):
    return factory()


@pytest.fixture(params=["sync", "asyncio"])
def flavour(request):
    return request.param


@pytest.fixture
def make_limiter(server, flavour):
    """make_limiter(port=..., **Limiter kwargs): a limiter of this test's flavour."""
    made = contextlib.ExitStack()

    def make(port=None, **kw):
        port = port or server.port
        return made.enter_context(limiter_over(
            flavour,
            lambda: redis.Redis(host="127.0.0.1", port=port),
            lambda: redis.asyncio.Redis(host="127.0.0.1", port=port),
            **kw))

    with made:
        yield make


@pytest.fixture
def limiter(r, make_limiter):
    """A limiter of this test's flavour on the module's server, flushed (r flushes)."""
    return make_limiter()
