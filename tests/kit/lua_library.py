"""The winlimit Functions library (lua/winlimit.lua) and the Redis 6.x script built from it
(target/lua/winlimit-script.lua, by scripts/build-lua.py), for tests and clients.

FCALL <name> 1 <key> <args...> with the library loaded (FUNCTION LOAD REPLACE); on 6.x
EVALSHA <sha of script_text()> 1 <key> <name> <args...>, and EVALSHA <sha> 0 winlimit_version.
"""

import json
import os
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LIBRARY_PATH = os.path.join(REPO, "lua", "winlimit.lua")
SCRIPT_PATH = os.path.join(REPO, "target", "lua", "winlimit-script.lua")
BUILD = os.path.join(REPO, "scripts", "build-lua.py")

TABLE_PATH = os.path.join(REPO, "clients", "spec", "command_table.json")


def command_table():
    """clients/spec/command_table.json's rows: the module's command table, generated from
    src/redis/commands.rs."""
    with open(TABLE_PATH, encoding="utf-8") as f:
        return json.load(f)["commands"]


# FCALL names by the module command they answer, from the command table.
FUNCTIONS = {row["name"].lower(): row["function"] for row in command_table() if row["function"]}


def library_text():
    """lua/winlimit.lua, for FUNCTION LOAD REPLACE."""
    with open(LIBRARY_PATH, encoding="utf-8") as f:
        return f.read()


def script_text():
    """The script for EVAL/EVALSHA, built first when missing or older than the library."""
    if not os.path.exists(SCRIPT_PATH) or os.path.getmtime(SCRIPT_PATH) < os.path.getmtime(LIBRARY_PATH):
        subprocess.run([sys.executable, BUILD], check=True)
    with open(SCRIPT_PATH, encoding="utf-8") as f:
        return f.read()


def load_library(client):
    """FUNCTION LOAD REPLACE the library on `client`'s server."""
    return client.execute_command("FUNCTION", "LOAD", "REPLACE", library_text())


def load_script(client):
    """SCRIPT LOAD the script on `client`'s server; returns its sha."""
    sha = client.script_load(script_text())
    return sha.decode() if isinstance(sha, bytes) else sha


class Library:
    """Calls the library as the module's commands are called: `args("winlimit.slide", key,
    60000, 5)` is the FCALL (FCALL_RO for the `_ro` forms) or, with scripts=True (Redis 6.x),
    the EVALSHA that answers `WINLIMIT.SLIDE key 60000 5`. Loads the library (or the script)
    on `client`'s server."""

    def __init__(self, client, scripts):
        self.scripts = scripts
        if scripts:
            self.sha = load_script(client)
        else:
            load_library(client)

    def args(self, command, key, *args):
        name = FUNCTIONS[command.lower()]
        if self.scripts:
            return ("EVALSHA", self.sha, 1, key, name, *args)
        return ("FCALL_RO" if name.endswith("_ro") else "FCALL", name, 1, key, *args)

    def call(self, client, command, key, *args):
        return client.execute_command(*self.args(command, key, *args))

    def version(self, client):
        if self.scripts:
            return client.evalsha(self.sha, 0, "winlimit_version")
        return client.fcall("winlimit_version", 0)
