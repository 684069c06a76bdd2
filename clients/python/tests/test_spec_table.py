"""The client's lists of commands are the module's command table
(clients/spec/command_table.json, generated from src/redis/commands.rs): the methods a
middleware's refund records, the options a refund repeats, and the commands the memory
limiter answers. Each is read from one registry, `winlimit._commands.COMMANDS`, where every
builder declares its command, state kind and shape options (an installed wheel reads no file
outside itself); these tests fail naming the row the registry misses. The Node client runs the same
checks (clients/node/test/spec-table.test.mjs)."""

import pytest
import redis

import winlimit.memory
from winlimit import _commands, _refund

from shared_spec import load

TABLE = load("command_table.json")["commands"]
CLIENT_ROWS = [row for row in TABLE if row["method"]]
# Options the clients alone have: the policy's name in the headers.
CLIENT_ONLY = {"name"}


WRITERS = [row for row in CLIENT_ROWS if row["records"]]
READERS = {row["name"]: row for row in CLIENT_ROWS if not row["records"]}


@pytest.mark.parametrize("row", WRITERS, ids=lambda r: r["name"])
def test_each_command_is_declared_once_with_the_tables_method_and_state(row):
    spec = _commands.COMMANDS.get(row["name"])
    assert spec is not None, f"winlimit._commands declares no {row['name']}"
    assert (spec.method, spec.state) == (row["method"], row["state"])


@pytest.mark.parametrize("row", WRITERS, ids=lambda r: r["name"])
def test_each_commands_shape_is_its_readers_options_but_the_cost(row):
    reader = READERS[row["partner"]]
    shape = {o["client"] for o in reader["options"]} - {"cost"}
    assert set(_commands.COMMANDS[row["name"]].shape) == shape


def test_the_client_declares_no_command_the_table_lacks():
    assert set(_commands.COMMANDS) <= {row["name"] for row in WRITERS}


def test_refunds_record_every_method_that_records():
    expected = {row["method"] for row in CLIENT_ROWS if row["records"]}
    assert set(_refund.RECORDING) == expected, f"RECORDING misses {sorted(expected - set(_refund.RECORDING))}"


def test_a_refund_repeats_every_option_that_shapes_the_limit():
    # The shape of a call is what its _RO reader takes too, its cost aside.
    shape = {o["client"] for row in CLIENT_ROWS if not row["records"] for o in row["options"]} - {"cost"}
    assert set(_refund.KEPT) == shape | CLIENT_ONLY, f"KEPT misses {sorted(shape - set(_refund.KEPT))}"


@pytest.mark.parametrize("row", CLIENT_ROWS, ids=lambda r: r["name"])
def test_the_memory_limiter_answers_each_command(row):
    # No arguments: the command's own parser answers (a range error), not the dispatch.
    with pytest.raises(redis.ResponseError) as error:
        winlimit.memory.Limiter().execute_command(row["name"], "key")
    assert "unknown command" not in str(error.value), f"the memory limiter does not answer {row['name']}"


def test_the_memory_limiter_refuses_a_command_the_table_lacks():
    with pytest.raises(redis.ResponseError, match="unknown command"):
        winlimit.memory.Limiter().execute_command("WINLIMIT.NOPE", "key", 1000, 5)


def test_a_new_command_of_a_known_state_needs_no_memory_code(monkeypatch):
    # A counter command without ALIGN, declared as a builder would declare it: the memory
    # limiter answers it as a counter and refuses FIXED's ALIGN in the module's words.
    toy = _commands.Spec("WINLIMIT.SCRATCH", "scratch", "counter")
    monkeypatch.setitem(_commands.COMMANDS, toy.command, toy)
    limiter = winlimit.memory.Limiter(clock=lambda: 1_000)
    assert limiter.execute_command("WINLIMIT.SCRATCH", "k", 1000, 1)[0] == 1
    assert limiter.execute_command("WINLIMIT.SCRATCH", "k", 1000, 1)[0] == 0
    with pytest.raises(redis.ResponseError, match="^unknown option 'align'$"):
        limiter.execute_command("WINLIMIT.SCRATCH", "k2", 1000, 1, "align")
