"""Under maxmemory with noeviction exhausted, every writer of the kit's table is refused
(denyoom) before it runs, and the _RO readers still answer."""

import pytest

from kit import commands
from kit.keyspace import snapshot
from kit.support import each_writers_key
from kit.errors import error_of


OOM = "OOM command not allowed when used memory > 'maxmemory'."
WRITERS = [pytest.param(c, id=c.short) for c in commands.WRITERS]
READERS = [pytest.param(c, id=c.short) for c in commands.READERS]


@pytest.fixture
def full(server):
    """The server with every writer's key (one unit of 5 taken), then maxmemory 1
    (noeviction): always exceeded."""
    r = server.client
    r.flushall()
    each_writers_key(r, "k:", persist=False)
    r.config_set("maxmemory-policy", "noeviction")
    r.config_set("maxmemory", 1)
    yield r
    r.config_set("maxmemory", 0)


@pytest.mark.parametrize("writer", WRITERS)
@pytest.mark.parametrize("key", ["k:", "new"])
def test_writers_get_the_oom_error_and_write_nothing(server, full, writer, key):
    key = key + writer.short if key == "k:" else key
    before = snapshot(full, dump=True)
    assert error_of(server.port, writer.name.upper(), key, *writer.sample) == OOM
    assert snapshot(full, dump=True) == before


@pytest.mark.parametrize("reader", READERS)
def test_readers_still_answer(full, reader):
    assert full.execute_command(reader.name, "k:" + reader.writer.short, *reader.sample)[:3] == [1, 5, 4]
    assert full.execute_command(reader.name, "new", *reader.sample)[:3] == [1, 5, 5]


@pytest.mark.parametrize("writer", WRITERS)
def test_writers_work_again_once_memory_is_available(full, writer):
    full.config_set("maxmemory", 0)
    assert full.execute_command(writer.name, "k:" + writer.short, *writer.sample)[:3] == [1, 5, 3]
