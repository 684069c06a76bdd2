"""WINLIMIT.RESETSTAT clears INFO winlimit's counters, only when the server really runs it (not
queued in a discarded MULTI, not refused by ACL); CONFIG RESETSTAT leaves them: the module
watches no other command (no command filter), so loading it costs other commands nothing."""

import pytest
import redis

from kit import commands, editions
from kit.commands import call
from kit.errors import error_of
from kit.support import W

pytestmark = editions.module_only("INFO winlimit's counters are the module's; a library cannot add INFO fields")

COMMANDS = [c.short for c in commands.DEFAULT]
FIELDS = ["calls", "allowed", "rejected", "errors"]
NO_RESET = ("noreset", "pw")  # +@all but neither reset


def counters(r):
    i = r.info("winlimit")
    return {f"{cmd}_{field}": i[f"winlimit_{cmd}_{field}"] for cmd in COMMANDS for field in FIELDS}


@pytest.fixture
def counted(r):
    """Every command called twice (one accepted, one rejected), so every counter but errors is
    above zero."""
    for command in COMMANDS:
        call(r, command, "k" + command, W, 1)
        call(r, command, "k" + command, W, 1, "COST", 2)
    before = counters(r)
    assert all(before[f"{cmd}_calls"] > 0 for cmd in COMMANDS)
    return before


def test_winlimit_resetstat_clears_every_counter(r, counted):
    assert r.execute_command("WINLIMIT.RESETSTAT") == b"OK"
    assert set(counters(r).values()) == {0}


def test_config_resetstat_leaves_the_counters(r, counted):
    r.config_resetstat()
    assert counters(r) == counted


def test_winlimit_resetstat_run_by_exec_clears_the_counters(r, counted):
    pipe = r.pipeline(transaction=True)
    pipe.execute_command("WINLIMIT.RESETSTAT")
    assert pipe.execute() == [b"OK"]
    assert set(counters(r).values()) == {0}


@pytest.mark.parametrize("reset", [["WINLIMIT.RESETSTAT"], ["CONFIG", "RESETSTAT"]], ids=" ".join)
def test_a_reset_queued_in_a_discarded_multi_clears_nothing(server, counted, reset):
    client = redis.Redis(host="127.0.0.1", port=server.port, decode_responses=True)
    try:
        assert client.execute_command("MULTI") == "OK"
        assert client.execute_command(*reset) == "QUEUED"
        assert client.execute_command("DISCARD") == "OK"
        assert counters(client) == counted
    finally:
        client.close()


@pytest.mark.parametrize("reset", [["WINLIMIT.RESETSTAT"], ["CONFIG", "RESETSTAT"]], ids=" ".join)
def test_a_reset_refused_by_acl_clears_nothing(server, r, counted, reset):
    r.execute_command("ACL", "SETUSER", NO_RESET[0], "on", ">" + NO_RESET[1], "~*", "+@all", "-config",
                      "-winlimit.resetstat")
    try:
        error = error_of(server.port, *reset, auth=NO_RESET)
        assert error is not None and error.startswith("NOPERM"), error
        assert counters(r) == counted
    finally:
        r.execute_command("ACL", "DELUSER", NO_RESET[0])


def test_winlimit_resetstat_takes_no_argument(server, counted, r):
    error = error_of(server.port, "WINLIMIT.RESETSTAT", "now")
    # Redis 6.0 names the command as typed, later servers in lower case.
    assert error.lower() == "err wrong number of arguments for 'winlimit.resetstat' command"
    assert counters(r) == counted


def test_winlimit_resetstat_is_an_admin_command_without_keys(r):
    info = r.execute_command("COMMAND", "INFO", "winlimit.resetstat")["winlimit.resetstat"]
    assert "admin" in info["flags"]
    assert (info["first_key_pos"], info["last_key_pos"], info["step_count"]) == (0, 0, 0)
