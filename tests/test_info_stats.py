"""INFO winlimit: section winlimit with the version, section winlimit_stats with per-command
calls/allowed/rejected/errors (WINLIMIT.RESETSTAT clears them: test_resetstat)."""

import socket

import pytest

from kit.server import CARGO_VERSION
from kit.commands import call
from kit import commands, editions
from kit.errors import error_of
from kit.ready import READY_TIMEOUT
from kit.support import W

pytestmark = editions.module_only("INFO winlimit's counters are the module's; a library cannot add INFO fields")


COMMANDS = [c.short for c in commands.DEFAULT]  # in the order the module registers them
FIELDS = ["calls", "allowed", "rejected", "errors"]


def info_text(port, section):
    """The raw INFO reply text (section headers included)."""
    with socket.create_connection(("127.0.0.1", port), timeout=READY_TIMEOUT) as s:
        s.sendall(b"*2\r\n$4\r\nINFO\r\n$%d\r\n%s\r\n" % (len(section), section.encode()))
        f = s.makefile("rb")
        header = f.readline()
        assert header.startswith(b"$"), header
        return f.read(int(header[1:-2])).decode()


def stats(r, command):
    i = r.info("winlimit")
    return {field: i[f"winlimit_{command}_{field}"] for field in FIELDS}


def delta(r, command, fn):
    before = stats(r, command)
    fn()
    after = stats(r, command)
    return {field: after[field] - before[field] for field in FIELDS}


def test_info_winlimit_starts_with_the_version_section(server, r):
    lines = info_text(server.port, "winlimit").splitlines()
    assert lines[:2] == ["# winlimit", f"winlimit_version:{CARGO_VERSION}"]


def test_info_winlimit_has_section_winlimit_stats_with_every_field(server, r):
    lines = info_text(server.port, "winlimit").splitlines()
    stats_at = lines.index("# winlimit_stats")
    fields = [line.split(":")[0] for line in lines[stats_at + 1:] if line]
    assert fields == [f"winlimit_{cmd}_{field}" for cmd in COMMANDS for field in FIELDS]


@pytest.mark.parametrize("command", COMMANDS)
def test_accepted_and_rejected_calls_are_counted(r, command):
    if command.endswith("_ro"):
        call(r, command[:-3], "k", W, 2)  # one unit used: _RO with limit 2 accepts COST 1, rejects COST 2

        def run():
            for _ in range(3):
                call(r, command, "k", W, 2)
            for _ in range(2):
                call(r, command, "k", W, 2, "COST", 2)
    else:
        def run():
            for _ in range(5):
                call(r, command, "k", W, 3)
    expected = {"calls": 5, "allowed": 3, "rejected": 2, "errors": 0}
    assert delta(r, command, run) == expected


@pytest.mark.parametrize("command", COMMANDS)
def test_errors_are_counted_as_calls_and_errors(server, r, command):
    r.rpush("list", "x")

    def run():
        assert error_of(server.port, "WINLIMIT." + command.upper(), "k", 0, 5).startswith("ERR ")
        assert error_of(server.port, "WINLIMIT." + command.upper(), "k", W, 5, "XYZ").startswith("ERR unknown")
        assert error_of(server.port, "WINLIMIT." + command.upper(), "list", W, 5).startswith("WRONGTYPE")
    assert delta(r, command, run) == {"calls": 3, "allowed": 0, "rejected": 0, "errors": 3}


def test_each_command_counts_only_its_own_calls(r):
    before = {cmd: stats(r, cmd) for cmd in COMMANDS}
    call(r, "fixed", "k", W, 3)
    after = {cmd: stats(r, cmd) for cmd in COMMANDS}
    assert [cmd for cmd in COMMANDS if after[cmd] != before[cmd]] == ["fixed"]
