#!/usr/bin/env python3
"""Builds the Redis 6.x script from the Functions library: target/lua/winlimit-script.lua is
lua/winlimit.lua without its `#!lua name=winlimit` line (a syntax error on 6.x), so there is
one source of truth. The script is run as EVALSHA <sha> 1 <key> <function_name> <args...>
(EVALSHA <sha> 0 winlimit_version); lua/winlimit.lua itself dispatches when it is not being
loaded as a library.

Usage: scripts/build-lua.py [output path]"""

import os
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SOURCE = os.path.join(REPO, "lua", "winlimit.lua")
OUTPUT = os.path.join(REPO, "target", "lua", "winlimit-script.lua")


def script_from(library: str) -> str:
    """The library's text as a plain script: the `#!` line dropped, nothing else changed
    (an empty line keeps the line numbers of error messages the same)."""
    first, newline, rest = library.partition("\n")
    if not first.startswith("#!lua"):
        raise ValueError("lua/winlimit.lua must start with its #!lua name=winlimit line")
    return "-- winlimit script for EVALSHA, built from lua/winlimit.lua by scripts/build-lua.py\n" + rest


def main() -> None:
    output = sys.argv[1] if len(sys.argv) > 1 else OUTPUT
    with open(SOURCE, encoding="utf-8") as f:
        text = script_from(f.read())
    os.makedirs(os.path.dirname(output), exist_ok=True)
    tmp = output + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, output)


if __name__ == "__main__":
    main()
