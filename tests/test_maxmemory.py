"""Under maxmemory with noeviction exhausted, the writing variants are refused (denyoom)
before they run, and the _RO variants still answer."""

import pytest

from kit.commands import call
from kit.keyspace import snapshot
from kit.support import W
from kit.errors import error_of


OOM = "OOM command not allowed when used memory > 'maxmemory'."


@pytest.fixture
def full(server):
    """The server with some limiter keys, then maxmemory 1 (noeviction): always exceeded."""
    r = server.client
    r.flushall()
    for _ in range(2):
        call(r, "slide", "s", W, 5)
        call(r, "fixed", "f", W, 5)
    r.config_set("maxmemory-policy", "noeviction")
    r.config_set("maxmemory", 1)
    yield r
    r.config_set("maxmemory", 0)


@pytest.mark.parametrize("command,key", [("slide", "s"), ("slide", "new"), ("fixed", "f"), ("fixed", "new")])
def test_writing_variants_get_oom_error_and_write_nothing(server, full, command, key):
    before = snapshot(full, dump=True)
    assert error_of(server.port, "WINLIMIT." + command.upper(), key, W, 5) == OOM
    assert snapshot(full, dump=True) == before


@pytest.mark.parametrize("command,key", [("slide_ro", "s"), ("fixed_ro", "f")])
def test_ro_variants_still_answer(full, command, key):
    assert call(full, command, key, W, 5)[:3] == (1, 5, 3)
    assert call(full, command, "new", W, 5)[:3] == (1, 5, 5)


def test_writing_variants_work_again_once_memory_is_available(server, full):
    full.config_set("maxmemory", 0)
    assert call(full, "slide", "s", W, 5).remaining == 2
    assert call(full, "fixed", "f", W, 5).remaining == 2
