"""Why a command falls behind one that costs more instructions on many keys: callgrind with
`--cache-sim=yes` (its model of this machine's caches) on one server, the many-keys profile's
shapes (winbench.manykeys) on 100,000 random keys, one client, pipeline 16. Per contender the
keyspace is flushed and warmed up as the profile does it, then CALLS calls are counted:
instructions, data reads and writes, and first-level data cache misses per call.

Run: PYTHONPATH=tests:bench .venv/bin/python -m winbench.cachesim [--only FIXED,GCRA]
(a few minutes per contender: the cache model slows the server some 100 times). Prints a
Markdown table for bench/results/many-keys.md's note."""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
from pathlib import Path

from kit.lua_library import library_text
from winbench.config import DEFAULT_MODULE, LUA_DIR
from winbench.instr import Counted, newest_dump
from winbench.manykeys import CONTENDERS, KEYS, PIPELINE, SCRIPTS, WARM_UP

CALLS = 20_000
# First-level data misses: callgrind models the last level on what it reads of the machine
# (256 MB on this VM), which holds every key, so its misses say nothing of a real cache's.
EVENTS = ("Ir", "Dr", "Dw", "D1mr", "D1mw")


def totals(dump: Path) -> dict[str, int]:
    """The event totals of a callgrind dump (its `events:` and `summary:`/`totals:` lines)."""
    names, values = [], []
    for line in dump.read_text(errors="replace").splitlines():
        if line.startswith("events:"):
            names = line.split()[1:]
        elif line.startswith(("summary:", "totals:")):
            values = [int(v) for v in line.split()[1:]]
    return dict(zip(names, values))


def run(server: Counted, argv: list[str], requests: int) -> None:
    cmd = [server.rb, "-h", "127.0.0.1", "-p", str(server.server.port), "-c", "1", "-P", str(PIPELINE),
           "-r", str(KEYS), "-n", str(requests), "-q", *argv]
    subprocess.run(cmd, check=True, capture_output=True, timeout=3600)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--module", type=Path, default=DEFAULT_MODULE)
    ap.add_argument("--only", type=lambda s: [x.strip().upper() for x in s.split(",")], help="contenders")
    ap.add_argument("--redis-server", default=shutil.which("redis-server") or "redis-server")
    ap.add_argument("--redis-benchmark", default=shutil.which("redis-benchmark") or "redis-benchmark")
    args = ap.parse_args()
    server = Counted("cachesim", [(args.module, [])], args.redis_server, args.redis_benchmark,
                     valgrind_args=("--cache-sim=yes",))
    rows = []
    try:
        shas = {name: server.client.script_load((LUA_DIR / file).read_text()) for name, file in SCRIPTS.items()}
        server.client.execute_command("FUNCTION", "LOAD", "REPLACE", library_text())
        for name in args.only or list(CONTENDERS):
            argv = [a.format(**shas) for a in CONTENDERS[name][1]]
            per_call = {}
            for what in ("PING", name):  # PING right before: the event loop's share, subtracted
                server.client.flushall()
                if what != "PING":
                    run(server, argv, WARM_UP)
                server.control("-z")
                run(server, ["PING"] if what == "PING" else argv, CALLS)
                server.control("-d", what)
                per_call[what] = {e: v / CALLS for e, v in totals(newest_dump(server.dir)).items()}
            net = {e: per_call[name][e] - per_call["PING"][e] for e in EVENTS}
            rows.append((name, net))
            print(f"{name:<15} " + " ".join(f"{e} {net[e]:>9,.1f}" for e in EVENTS), flush=True)
    finally:
        server.stop()
    print("\n| contender | instructions | data reads | data writes | L1 data read misses | L1 data write misses |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, net in rows:
        print(f"| {name} | " + " | ".join(f"{net[e]:,.0f}" if len(e) == 2 else f"{net[e]:,.1f}"
                                          for e in EVENTS) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
