#!/usr/bin/env python3
"""Counts the local variables of lua/winlimit.lua as Lua 5.1 allocates them (`luac5.1 -l -l`
lists every function's locals with the instructions where each is live) and fails above the
library's bounds. Lua allows 200 locals per function, and a Functions library is one chunk:
each algorithm keeps its locals in its own `do ... end`, so the main chunk's top level stays
small and the library has room for more algorithms.

- at most TOP_LEVEL locals live until the end of the main chunk (its top level; a local of
  the chunk's last block counts too, which errs on the safe side);
- at most ACTIVE locals live at once anywhere, in any function.

Usage: scripts/lua-locals.py [file.lua]   (make lint runs it)"""

import os
import re
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SOURCE = os.path.join(REPO, "lua", "winlimit.lua")
TOP_LEVEL = 60
ACTIVE = 100

HEADER = re.compile(r"^(main|function) <([^>]*)> \((\d+) instructions")
LOCALS = re.compile(r"^locals \((\d+)\) for ")
LOCAL = re.compile(r"^\t\d+\t(\S+)\t(\d+)\t(\d+)$")


def functions(listing: str):
    """(kind, where, instruction count, [(name, startpc, endpc)]) for each function."""
    found, current, in_locals = [], None, False
    for line in listing.splitlines():
        header = HEADER.match(line)
        if header:
            current = (header.group(1), header.group(2), int(header.group(3)), [])
            found.append(current)
            in_locals = False
        elif LOCALS.match(line):
            in_locals = True
        elif in_locals and current is not None:
            local = LOCAL.match(line)
            if local:
                current[3].append((local.group(1), int(local.group(2)), int(local.group(3))))
            else:
                in_locals = False
    return found


def most_active(locals_):
    """The most locals live at one instruction."""
    events = sorted([(start, 1) for _, start, _ in locals_] + [(end, -1) for _, _, end in locals_])
    live = best = 0
    for _, step in events:
        live += step
        best = max(best, live)
    return best


def problems(path: str):
    listing = subprocess.run(["luac5.1", "-p", "-l", "-l", path], check=True, capture_output=True,
                             text=True).stdout
    found = functions(listing)
    if not found or found[0][0] != "main":
        yield f"luac5.1 listed no main chunk for {path}"
        return
    _, _, count, main_locals = found[0]
    top = [name for name, _, end in main_locals if end >= count]
    if len(top) > TOP_LEVEL:
        yield (f"{path}: the main chunk declares {len(top)} locals at its top level (at most {TOP_LEVEL}): "
               + " ".join(top))
    for kind, where, _, locals_ in found:
        active = most_active(locals_)
        if active > ACTIVE:
            yield f"{path}: {kind} <{where}> has {active} locals live at once (at most {ACTIVE})"


def main() -> int:
    path = sys.argv[1] if len(sys.argv) > 1 else SOURCE
    found = list(problems(path))
    for problem in found:
        print(problem, file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
