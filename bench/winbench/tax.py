"""`make bench-instr`'s section on other commands: what PING, GET and SET cost (callgrind,
instructions per call in `processInputBuffer`: parsing, command filters, the command and its
reply) on one server before and after `MODULE LOAD` of winlimit,
with no winlimit command called. Loading the module must not tax the rest of the server: the
target is the same cost within TAX_TOLERANCE instructions per call.

One process counts both sides (before the load, then after), so its hash seed and memory
layout do not differ between them as they do between two processes (up to 3%). The added
cost still moves with the seed: the command table gains winlimit's commands, and one that
shares a hash chain with GET costs GET some 12 instructions. So the rows are medians over at
least MIN_PROCESSES processes, whatever --runs says (each one is cheap)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from winbench.config import R

TAX_TOLERANCE = 10
# Processes whose median the rows report, at the least (see the module's docstring).
MIN_PROCESSES = 5
# Only what a command costs from its bytes read to its reply queued: the event loop, the
# server's cron and the socket writes are left out, as they run per wall second and per
# round trip, so a busy machine (a slower round trip) would move them by hundreds.
COLLECT = ("--collect-atstart=no", "--toggle-collect=processInputBuffer")
# GET reads keys SET wrote (a cache's hits): each GET count runs on the keys the SET filled.
OTHER_COMMANDS = {
    "PING": (["PING"], None),
    "GET": (["GET", f"tax:{R}"], ["SET", f"tax:{R}", "a-cached-value"]),
    "SET": (["SET", f"tax:{R}", "a-cached-value"], None),
}


def count(server, name: str, argv: list[str], prefill: list[str] | None, calls: int) -> float:
    """Instructions per call of argv (PING included: the absolute cost), after as many calls
    to warm up; `server` is a winbench.instr.Counted."""
    server.client.flushall()
    if prefill:
        server.run(prefill, calls)
    server.run(argv, calls)
    server.control("-z")
    server.run(argv, calls)
    server.control("-d", name)
    return server.dumped_total() / calls


def measure_once(counted_class, module: Path, module_args: list[str], redis_server: str, rb: str,
                 calls: int) -> dict[str, tuple[float, float]]:
    """command -> (instructions per call without the module, with it loaded)."""
    # MODULE LOAD needs enable-module-command on Redis 7.0+ (older servers have no such option).
    version = subprocess.run([redis_server, "--version"], capture_output=True, text=True).stdout
    major = int(version.split("v=")[1].split(".")[0]) if "v=" in version else 7
    server = counted_class("tax", [], redis_server, rb, valgrind_args=COLLECT,
                           server_args=("--enable-module-command", "yes") if major >= 7 else ())
    try:
        without = {name: count(server, f"{name}_without", argv, pre, calls)
                   for name, (argv, pre) in OTHER_COMMANDS.items()}
        server.client.execute_command("MODULE", "LOAD", str(module), *module_args)
        loaded = {name: count(server, f"{name}_loaded", argv, pre, calls)
                  for name, (argv, pre) in OTHER_COMMANDS.items()}
    finally:
        server.stop()
    return {name: (without[name], loaded[name]) for name in OTHER_COMMANDS}


def processes(runs: int) -> int:
    """How many processes count the rows for `--runs runs`."""
    return max(runs, MIN_PROCESSES)


def measure(runs: int, *args) -> dict[str, dict]:
    """Per command, the median over processes(runs) processes of both costs and of their
    difference."""
    counts = []
    total = processes(runs)
    for i in range(total):
        print(f"-- other commands, process {i + 1} of {total}", flush=True)
        counts.append(measure_once(*args))
        for name, (without, loaded) in counts[-1].items():
            print(f"{name:<5} {without:>8,.0f} without the module, {loaded:>8,.0f} with it loaded", flush=True)

    def median(values):
        return sorted(values)[len(values) // 2]

    return {name: {"without": round(median([c[name][0] for c in counts])),
                   "loaded": round(median([c[name][1] for c in counts])),
                   "added": round(median([c[name][1] - c[name][0] for c in counts]))}
            for name in OTHER_COMMANDS}


def targets(rows: dict[str, dict]) -> list[dict]:
    # One-sided: a process counts a few instructions apart between its two halves (memory
    # layout), either way; a cost below the unloaded one is no tax.
    return [{"target": f"{name} with the module loaded <= {TAX_TOLERANCE} instructions above without",
             "value": f"{row['added']:+,} ({row['without']:,} -> {row['loaded']:,})",
             "pass": row["added"] <= TAX_TOLERANCE} for name, row in rows.items()]


def section(rows: dict[str, dict], runs: int) -> list[str]:
    """The Markdown section of instructions.md."""
    return ["## Other commands, with the module loaded and not called\n",
            f"Instructions per call inside `processInputBuffer` (parsing, command filters, the command, "
            f"its reply; not the event loop, the cron or the socket writes, which a busy machine moves), one server counted before and after `MODULE "
            f"LOAD` of winlimit, no winlimit command called; the median of {processes(runs)} processes (at "
            f"least {MIN_PROCESSES} whatever --runs says, as the added cost moves with each process's hash "
            "seed; the added cost is each process's difference).\n",
            "| command | without the module | module loaded | added |", "|---|---:|---:|---:|",
            *(f"| {name} | {row['without']:,} | {row['loaded']:,} | {row['added']:+,} |" for name, row in rows.items()),
            ""]
