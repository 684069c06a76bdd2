"""The lists of commands outside the module are the module's command table
(clients/spec/command_table.json, generated from src/redis/commands.rs by cargo test): the
kit's rows, the library's names in the kit, and the Lua library's FUNCTIONS and NAMES. Each
test names the row that is missing or differs. No server needed."""

import re

import pytest

from kit import commands, lua_library

TABLE = lua_library.command_table()
BY_NAME = {row["name"].lower(): row for row in TABLE}


def lua_functions():
    """lua/winlimit.lua's FUNCTIONS: function name -> (command, records)."""
    text = lua_library.library_text()
    # At any indent: the entry points live in a block of their own.
    body = re.search(r"^([ \t]*)local FUNCTIONS = \{\n(.*?)^\1\}", text, re.M | re.S).group(2)
    rows = re.findall(r"^\s*(\w+) = \{ '([\w.]+)', \w+, (true|false) \},", body, re.M)
    return {name: (command, records == "true") for name, command, records in rows}


def lua_names():
    """lua/winlimit.lua's NAMES: the functions it registers, in order."""
    text = lua_library.library_text()
    return re.findall(r"'(\w+)'", re.search(r"^[ \t]*local NAMES = \{(.*?)\}", text, re.M | re.S).group(1))


def test_the_kit_has_a_row_for_every_command_of_the_table():
    missing = sorted(set(BY_NAME) - {c.name for c in commands.TABLE})
    assert not missing, f"tests/kit/commands.py lacks the rows {missing}"


def test_every_row_of_the_kit_is_a_command_of_the_table():
    unknown = sorted({c.name for c in commands.TABLE} - set(BY_NAME))
    assert not unknown, f"tests/kit/commands.py has rows the table lacks: {unknown}"


@pytest.mark.parametrize("command", commands.TABLE, ids=lambda c: c.name)
def test_a_kit_row_records_partners_and_takes_options_as_the_table_says(command):
    row = BY_NAME[command.name]
    assert command.writes == row["records"], f"{command.name}: writes"
    partner = row["partner"].lower() if row["partner"] else None
    assert command.partner == partner, f"{command.name}: partner"
    assert command.tokens == {o["token"] for o in row["options"]}, f"{command.name}: options"
    assert [a.name for a in command.positional] == row["positional"], f"{command.name}: positional arguments"
    assert (commands.EDITIONS if row["function"] else {"module"}) == command.editions, f"{command.name}: editions"


def test_the_kit_names_the_library_functions_of_the_table():
    assert lua_library.FUNCTIONS == {name: row["function"] for name, row in BY_NAME.items() if row["function"]}


@pytest.mark.parametrize("row", [r for r in TABLE if r["function"]], ids=lambda r: r["name"])
def test_the_lua_library_answers_each_command_of_the_table(row):
    functions = lua_functions()
    assert row["function"] in functions, f"lua/winlimit.lua's FUNCTIONS lacks {row['function']} ({row['name']})"
    assert functions[row["function"]] == (row["name"].lower(), row["records"]), f"{row['function']}: its entry"
    assert row["function"] in lua_names(), f"lua/winlimit.lua's NAMES lacks {row['function']}"


def test_the_lua_library_answers_nothing_the_table_lacks():
    known = {row["function"] for row in TABLE}
    assert not sorted(set(lua_functions()) - known), "FUNCTIONS entries without a row"
    assert not sorted(set(lua_names()) - known), "NAMES entries without a row"
