"""Fixtures for the client's tests: real redis-server processes from the repository's test
kit (tests/kit: `kit.server`, `kit.fixtures`), and every limiter test run twice, over
redis-py's sync client and over its asyncio client.

WINLIMIT_CLIENT_BACKEND chooses the backend the whole suite runs on: `module` (the default;
servers with the module), `functions` or `scripts` (servers without it; the limiters made by
`make_limiter` force that backend, the others use "auto", which finds it)."""

import asyncio
import contextlib
import os
import pytest
import redis
import redis.asyncio
import redis.asyncio.cluster
import redis.cluster

import winlimit
import winlimit.asyncio

from kit.fixtures import module_server, r  # noqa: F401  (fixtures these tests use)
from kit.cluster import Cluster
from kit.server import RedisServer, module_path

BACKEND = os.environ.get("WINLIMIT_CLIENT_BACKEND", "module")
if BACKEND not in ("module", "functions", "scripts"):
    raise ValueError(f"WINLIMIT_CLIENT_BACKEND={BACKEND!r}: expected module, functions or scripts")
# Servers "with winlimit" for this run: the module loaded, or not (the limiter loads the library).
MODULE = BACKEND == "module"

server = module_server(module=MODULE)


@pytest.fixture
def start_server():
    """Factory: start_server(**RedisServer kwargs), with this run's module default; every
    server it starts is stopped after the test."""
    started = []

    def start(**kw):
        started.append(RedisServer(**{"module": MODULE, **kw}))
        return started[-1]

    yield start
    for s in reversed(started):
        s.stop()


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
    (the async one is made inside the loop it will run on). The backend is this run's unless
    given."""
    kw.setdefault("backend", BACKEND)
    # The asyncio limiter times each call out after 1 s by default; a loaded test machine can
    # take longer to load the library. Timeouts are tested where they are the subject.
    kw.setdefault("timeout", None)
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


def cluster_limiter_over(flavour, port, **kw):
    """limiter_over for a RedisCluster (sync or asyncio) started from `port`."""
    return limiter_over(flavour, lambda: redis.cluster.RedisCluster(host="127.0.0.1", port=port),
                        lambda: redis.asyncio.cluster.RedisCluster(host="127.0.0.1", port=port), **kw)


def module_cluster(module):
    """A fixture: one 3-master cluster per test module, with the module or without it."""

    @pytest.fixture(scope="module")
    def fixture():
        c = Cluster(masters=3, module=module)
        yield c
        c.stop()

    return fixture


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


def as_sent(r, *args):
    """A WINLIMIT command line as this run's backend sends it (FCALL or EVALSHA, with the
    library or script loaded on r's server), to compare the limiter with the server."""
    if MODULE:
        return args
    from kit.lua_library import Library
    return Library(r, scripts=BACKEND == "scripts").args(*args)


def sent_as(command):
    """The command a WINLIMIT command (lower case) reaches the server as in this run, as INFO
    commandstats names it: itself, fcall / fcall_ro, or evalsha."""
    if MODULE:
        return command
    if BACKEND == "scripts":
        return "evalsha"
    return "fcall_ro" if command.endswith("_ro") else "fcall"
