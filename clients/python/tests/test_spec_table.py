"""The client's lists of commands are the module's command table
(clients/spec/command_table.json, generated from src/redis/commands.rs): the methods a
middleware's refund records, the options a refund repeats, and the commands the memory
limiter answers. The lists stay in the package's code (an installed wheel reads no file
outside itself); these tests fail naming the row a list misses. The Node client runs the same
checks (clients/node/test/spec-table.test.mjs)."""

import pytest
import redis

import winlimit.memory
from winlimit import _refund

from shared_spec import load

TABLE = load("command_table.json")["commands"]
CLIENT_ROWS = [row for row in TABLE if row["method"]]
# Options the clients alone have: the policy's name in the headers.
CLIENT_ONLY = {"name"}


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
