"""The site's command reference (reference/commands.md, rendered from
clients/spec/command_table.json by scripts/command_reference.py) prints what the server does:
every out-of-range argument it documents, sent to a real server, gets the error text the page
prints, word for word, and every command of the table has its section."""

import os
import sys

import pytest

from kit.errors import error_of
from kit.server import REPO

sys.path.insert(0, os.path.join(REPO, "scripts"))
import command_reference  # noqa: E402  (scripts/ is not a package)

TABLE = command_reference.load_table()
VALID = {"window_ms": "60000", "period_ms": "60000", "limit": "10"}


def out_of_range(bounds):
    """A value just outside the range: one past the maximum where it fits in 64 bits, else
    one below the minimum."""
    if bounds["max"] != command_reference.INT64_MAX:
        return str(int(bounds["max"]) + 1)
    return str(int(bounds["min"]) - 1)


def documented_range_errors():
    for command in TABLE:
        for argument in command["ranges"]:
            if (text := command_reference.range_error(command, argument)) is not None:
                yield pytest.param(command, argument, text, id=f"{command['name']}-{argument}")


def call_with(command, argument, value):
    """The command with valid arguments but `argument`, which gets `value`."""
    args = [command["name"], "docs:reference"]
    args += [value if name == argument else VALID[name] for name in command["positional"]]
    option = next((o for o in command["options"] if o["argument"] == argument), None)
    if option is not None:
        args += [option["token"], value]
    return args


@pytest.mark.parametrize("command, argument, text", list(documented_range_errors()))
def test_each_documented_range_error_is_the_servers_reply(server, command, argument, text):
    bounds = command["ranges"][argument]
    assert error_of(server.port, *call_with(command, argument, out_of_range(bounds))) == text


@pytest.mark.parametrize("command", TABLE, ids=lambda c: c["name"])
def test_the_page_has_a_section_per_command_with_its_synopsis(command):
    page = command_reference.render(TABLE)
    assert f"## {command['name']}\n\n```\n{command_reference.synopsis(command)}\n```" in page


@pytest.mark.parametrize("command", TABLE, ids=lambda c: c["name"])
def test_the_page_gives_every_argument_its_range_from_the_table(command):
    section = "\n".join(command_reference.command_section(command))
    for argument, bounds in command["ranges"].items():
        assert command_reference.range_text(argument, bounds) in section
