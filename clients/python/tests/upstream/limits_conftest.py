"""The conftest of `limits`' own tests, as scripts/limits-tests.py runs them against winlimit's
storage (it replaces the sdist's conftest, which starts its servers with Docker).

One real redis-server from the project's kit (with the module, or without it on the
functions and scripts backends) stands for limits' `redis_basic`. Every case limits runs on
its Redis storage runs on winlimit's instead: the `uri` becomes a winlimit URI (`async+` for
limits.aio) and `expected_instance` winlimit's storage class; every other storage's cases are
deselected. A case listed in DIFFERENCES is expected to fail (README, "Flask-Limiter,
slowapi and limits" lists each with its reason); it must fail, or the run fails.
"""

import os

import pytest

import winlimit.limits
from kit.server import RedisServer

BACKEND = os.environ.get("WINLIMIT_CLIENT_BACKEND", "module")
_server = None

# test node id fragment -> why winlimit differs (kept in step with README).
SLIDING_WINDOW_COUNTER = "the sliding window counter is refused: it approximates the moving window"
DIFFERENCES = {
    "::TestSlidingWindow::": SLIDING_WINDOW_COUNTER,
    "::TestAsyncSlidingWindow::": SLIDING_WINDOW_COUNTER,
}


def _uri(asynchronous):
    scheme = "async+winlimit+redis" if asynchronous else "winlimit+redis"
    return f"{scheme}://127.0.0.1:{_server.port}"


def pytest_configure(config):
    global _server
    _server = RedisServer(module=BACKEND == "module")


def pytest_unconfigure(config):
    if _server is not None:
        _server.stop()


def _retarget(item):
    """True if the item ran on limits' own Redis storage, now pointed at winlimit's."""
    params = getattr(getattr(item, "callspec", None), "params", {})
    uri = params.get("uri")
    if not isinstance(uri, str) or uri.split("://")[0] not in ("redis", "async+redis"):
        return False
    asynchronous = uri.startswith("async+")
    params["uri"] = _uri(asynchronous)
    params["args"] = {"backend": BACKEND}
    if "expected_instance" in params:
        params["expected_instance"] = winlimit.limits.AsyncWinlimitStorage if asynchronous \
            else winlimit.limits.WinlimitStorage
    return True


def pytest_collection_modifyitems(config, items):
    kept = [item for item in items if _retarget(item)]
    config.hook.pytest_deselected(items=[item for item in items if item not in kept])
    for item in kept:
        why = next((reason for fragment, reason in DIFFERENCES.items() if fragment in item.nodeid), None)
        if why:
            item.add_marker(pytest.mark.xfail(reason=why, strict=True))
    items[:] = kept


@pytest.fixture
def redis_basic():
    _server.client.flushall()
    return _server.client
