"""The kit's command table (tests/kit/commands.py), which the ACL, COMMAND INFO, INFO,
WATCH, cluster, durability and workload tests walk, is the module's: a command added to the
module and not to the table, or the other way round, fails here."""

import pytest
import redis

from kit import commands, editions
from kit.durability import SHAPES
from kit.fixtures import module_server
from kit.server import REDIS_62

pytestmark = editions.module_only("what the module registers; the library registers functions, tested by the library's own tests")

compat = module_server(module_args=["cell-compat", "yes"])


def registered(server):
    client = redis.Redis(host="127.0.0.1", port=server.port, decode_responses=True)
    try:
        if REDIS_62:  # no COMMAND LIST (7.0+): the module's commands are COMMAND's with its prefixes
            return sorted(n for n in client.execute_command("COMMAND") if n.startswith(("winlimit.", "cl.")))
        return sorted(client.execute_command("COMMAND LIST", "FILTERBY", "MODULE", "winlimit"))
    finally:
        client.close()


def test_the_table_is_what_the_module_registers_by_default(server):
    assert registered(server) == sorted([c.name for c in commands.DEFAULT] + list(commands.ADMIN))


def test_with_cell_compat_the_table_is_every_row(compat):
    assert registered(compat) == sorted([c.name for c in commands.TABLE] + list(commands.ADMIN))


@pytest.mark.parametrize("command", commands.TABLE, ids=lambda c: c.name)
def test_every_samples_call_is_accepted_on_an_empty_key(compat, command):
    client = compat.client
    client.flushall()
    reply = client.execute_command(command.name, "k", *command.sample)
    assert reply[0] in (1, 0) and len(reply) == 5
    assert reply[0] == (0 if command.name == "cl.throttle" else 1)  # CL.THROTTLE: 0 is "allowed"
    assert client.exists("k") == int(command.writes)


@pytest.mark.parametrize("command", commands.TABLE, ids=lambda c: c.name)
def test_the_read_only_rows_are_the_ro_variants(command):
    assert command.writes == (not command.name.endswith("_ro"))


def test_the_durability_shapes_cover_every_writing_algorithm():
    written = {args[0].lower() for args in SHAPES.values()}
    assert written == {c.name for c in commands.WRITERS}
