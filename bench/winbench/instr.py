"""`make bench-instr`: what each contender costs in instructions per call, counted by
callgrind for the whole server, which does not move with the machine's load as wall time
does.

Method: one redis-server under `valgrind --tool=callgrind` (with the module, cell-compat and
a max-limit the hot key never reaches; redis-cell on a server of its own when --cell is
given); per contender, redis-benchmark with one client, pipeline 16 and 1,000 keys
(`-r 1000`) warms the keys up with 20,000 calls, then the counters are zeroed, 20,000 more
calls run, and the counters are dumped. Every call of a random-key contender is accepted
(limits far above 40 calls per key); what PING costs the same way is subtracted, so the
network round trip and the event loop cancel out.

Within one server process the counts repeat to a fraction of a percent; between processes
(each hashes with its own random seed and lays out its memory anew) a figure moves by up to
3%. So the whole count runs --runs times (3 by default), each on fresh servers, and the
table gives each contender's median with the lowest and highest; targets judge the median.

Writes bench/results/instructions.{md,json} (elsewhere with --out DIR) and prints PASS/FAIL
lines for the targets.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path


from kit.lua_library import library_text
from kit.server import RedisServer
from winbench.config import BENCH_DIR, DEFAULT_MODULE, LUA_DIR, R, TMP
from winbench.contenders import BUCKET_ARGS, BUCKET_MS, BUCKET_WINDOW_MS, contenders
from winbench.targets import target_line
from winbench import tax

CALLS = 20_000
KEYS = 1_000
PIPELINE = 16
MODULE_ARGS = ["cell-compat", "yes", "max-limit", "1000000"]
# A server under callgrind runs some 50 times slower: it gets longer to start.
START_TIMEOUT = 120


@dataclass(frozen=True)
class Target:
    """contender <= factor x of (a number, or another contender)."""

    contender: str
    factor: float
    of: str | None = None  # None: `factor` is an absolute instruction count

    def label(self) -> str:
        return f"{self.contender} <= {self.factor:,g}" + (f" x {self.of}" if self.of else " instructions per call")


TARGETS = [
    Target("FIXED", 7_900),
    Target("GCRA", 0.50, "REDIS_CELL"),
    Target("CELL_COMPAT", 0.50, "REDIS_CELL"),
    Target("BUCKET_STEADY", 0.65, "REDIS_CELL"),
    Target("SLIDE", 0.85, "REDIS_CELL"),
    Target("SLIDE", 0.22, "LUA_SLIDE"),
    Target("SLIDE_TWO_WINDOWS", 1.15, "SLIDE"),
    # The library (lua/winlimit.lua, FCALL) does exact work: a little more than naive scripts.
    Target("LIB_SLIDE", 1.2, "LUA_SLIDE"),
    Target("LIB_FIXED", 1.5, "LUA_FIXED"),
    Target("LIB_GCRA", 1.0, "LUA_GCRA_FLOAT"),
]


# The shapes the cost targets are stated for: every call of a random-key contender is
# accepted (40 calls per key over the run, far below each limit).
SHAPES = {
    "FIXED": ["WINLIMIT.FIXED", f"fx:{R}", "600000", "1000000000"],
    "GCRA": ["WINLIMIT.GCRA", f"gc:{R}", "60000", "100"],
    "CELL_COMPAT": ["CL.THROTTLE", f"cc:{R}", "99", "100", "60"],
    "REDIS_CELL": ["CL.THROTTLE", f"rc:{R}", "99", "100", "60"],
    "BUCKET_STEADY": ["WINLIMIT.SLIDE", f"bks:{R}", *BUCKET_ARGS],
    "SLIDE": ["WINLIMIT.SLIDE", f"sl:{R}", "600000", "10000"],
    "SLIDE_TWO_WINDOWS": ["WINLIMIT.SLIDE", f"sl2:{R}", "1000", "10000", "600000", "10000"],
}


# The library (FCALL) against the naive scripts in bench/lua/, pair by pair in one shape whose
# keys stay alive for the whole count (each key is called ~40 times; a run under callgrind takes
# a minute or more on a loaded machine): a 10-minute window; for GCRA 100 per hour, burst 100,
# so every call is accepted and each TAT runs ever further ahead of the clock (36 s per call).
# With a TAT that catches up with the clock between calls (100 per minute, when the run is slow),
# keys would expire and come back, and the count would follow the machine's load.
LIBRARY_CALLS = {
    "LIB_SLIDE": ["FCALL", "winlimit_slide", "1", f"lib:sl:{R}", "600000", "10000"],
    "LIB_FIXED": ["FCALL", "winlimit_fixed", "1", f"lib:fx:{R}", "600000", "1000000000"],
    "LIB_GCRA": ["FCALL", "winlimit_gcra", "1", f"lib:gc:{R}", "3600000", "100"],
}

# The floor under each: bench/lua/library_floor.lua makes the library's redis.call sequence
# and nothing else, in the same shape (what the library costs above it is its own Lua work).
FLOOR_CALLS = {f"FLOOR_{name[4:]}": ["FCALL", argv[1].replace("winlimit_", "floor_"), "1", f"floor:{argv[3]}", *argv[4:]]
               for name, argv in LIBRARY_CALLS.items()}


def anchor_calls(shas: dict) -> dict[str, list[str]]:
    """The Lua anchors in their library contender's shape (go-redis/redis_rate's float GCRA
    takes burst, rate, period in s, cost)."""
    return {
        "LUA_SLIDE": ["EVALSHA", shas["slide"], "1", f"lsl:{R}", "600000", "10000"],
        "LUA_FIXED": ["EVALSHA", shas["fixed"], "1", f"lfx:{R}", "600000", "1000000000"],
        "LUA_GCRA_FLOAT": ["EVALSHA", shas["gcra_float"], "1", f"lgf:{R}", "100", "100", "3600", "1"],
    }


def calls_of(shas: dict) -> dict[str, tuple[str, list[str]]]:
    """contender -> (server, argv): the shapes above, the bench's other contenders in the
    shape that accepts every call (their replication-cost calls; the Lua anchors in the
    library's shapes), and the hot key as the bench runs it."""
    out = {"PING": ("main", ["PING"])}
    anchors = anchor_calls(shas)
    for c in contenders():
        if c.name in SHAPES:
            out[c.name] = (c.server, SHAPES[c.name])
        elif c.name in anchors:
            out[c.name] = (c.server, anchors[c.name])
        elif c.group == "hot":
            out[c.name] = (c.server, c.argv(shas))
        elif c.aof is not None and c.group == "random":
            out[c.name] = (c.server, c.aof.argv(shas))
    out.update((name, ("main", argv)) for name, argv in {**LIBRARY_CALLS, **FLOOR_CALLS}.items())
    out["LUA_GCRA_FLOAT"] = ("main", anchors["LUA_GCRA_FLOAT"])
    return out


class Counted:
    """A server under callgrind and the redis-benchmark runs counted on it."""

    def __init__(self, name: str, modules: list[tuple[Path, list[str]]], redis_server: str, rb: str,
                 valgrind_args: tuple[str, ...] = (), server_args: tuple[str, ...] = ()):
        self.dir = TMP / "instr" / name
        shutil.rmtree(self.dir, ignore_errors=True)
        self.dir.mkdir(parents=True)
        loads = [arg for path, args in modules for arg in ("--loadmodule", str(path), *args)]
        launcher = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={self.dir}/callgrind.out.%n", *valgrind_args]
        self.server = RedisServer(module=False, args=[*loads, *server_args], dir=str(self.dir), server_bin=redis_server,
                                  launcher=launcher, start_timeout=START_TIMEOUT)
        self.client = self.server.new_client(decode_responses=True)
        self.rb = rb

    def run(self, argv: list[str], requests: int) -> None:
        cmd = [self.rb, "-h", "127.0.0.1", "-p", str(self.server.port), "-c", "1", "-P", str(PIPELINE),
               "-r", str(KEYS), "-n", str(requests), "-q", *argv]
        subprocess.run(cmd, check=True, capture_output=True, timeout=1800)

    def instructions(self, name: str, argv: list[str], warm_up_ms: int = 0) -> int:
        """Instructions the server ran for CALLS calls of argv, after a warm-up of as many calls
        (and, for warm_up_ms, calls until that much time has passed)."""
        self.client.flushall()
        self.run(argv, CALLS)
        end = time.monotonic() + warm_up_ms / 1000
        while time.monotonic() < end:
            self.run(argv, CALLS // 10)
        self.control("-z")
        self.run(argv, CALLS)
        self.control("-d", name)
        return total_of(newest_dump(self.dir))

    def control(self, *args: str) -> None:
        subprocess.run(["callgrind_control", *args, str(self.server.pid)], check=True, capture_output=True)

    def dumped_total(self) -> int:
        """The instructions of the newest dump."""
        return total_of(newest_dump(self.dir))

    def stop(self) -> None:
        self.server.stop(keep_dir=True)


def newest_dump(directory: Path) -> Path:
    return max(directory.glob("callgrind.out.*"), key=lambda p: p.stat().st_mtime_ns)


def total_of(dump: Path) -> int:
    """The instructions a callgrind dump counted (its `summary:` or `totals:` line)."""
    for line in dump.read_text(errors="replace").splitlines():
        if line.startswith(("summary:", "totals:")):
            return int(line.split()[1])
    raise ValueError(f"{dump} has no summary line")


def measure(args: argparse.Namespace) -> tuple[dict[str, int], dict[str, tuple[int, int]]]:
    """Per contender, the median over args.runs counts and the lowest and highest."""
    runs = []
    for i in range(args.runs):
        print(f"-- run {i + 1} of {args.runs}", flush=True)
        runs.append(measure_once(args))
    names = list(runs[0])
    median = {n: sorted(run[n] for run in runs)[len(runs) // 2] for n in names}
    spread = {n: (min(run[n] for run in runs), max(run[n] for run in runs)) for n in names}
    return median, spread


def measure_once(args: argparse.Namespace) -> dict[str, int]:
    """Instructions per call, net of PING, for every contender that can run, on fresh servers."""
    collect = tax.COLLECT if args.commands_only else ()
    main = Counted("main", [(args.module, MODULE_ARGS)], args.redis_server, args.redis_benchmark, collect)
    cell = Counted("cell", [(args.cell, [])], args.redis_server, args.redis_benchmark, collect) if args.cell else None
    try:
        shas = {"fixed": main.client.script_load((LUA_DIR / "fixed_window.lua").read_text()),
                "slide": main.client.script_load((LUA_DIR / "sliding_log.lua").read_text()),
                "gcra_float": main.client.script_load((LUA_DIR / "gcra_float.lua").read_text())}
        main.client.execute_command("FUNCTION", "LOAD", "REPLACE", library_text())
        main.client.execute_command("FUNCTION", "LOAD", "REPLACE", (LUA_DIR / "library_floor.lua").read_text())
        totals, servers = {}, {"main": main, "cell": cell}
        for name, (where, argv) in calls_of(shas).items():
            if args.only and name not in args.only and name != "PING":
                continue
            server = servers[where]
            if server is None:
                continue
            warm = BUCKET_WINDOW_MS + 2 * BUCKET_MS if name == "BUCKET_STEADY" else 0
            totals[name] = server.instructions(name, argv, warm)
            print(f"{name:<18} {totals[name] / CALLS:>10,.0f} instructions per call (PING included)", flush=True)
    finally:
        main.stop()
        if cell:
            cell.stop()
    ping = totals.pop("PING") / CALLS
    return {name: round(total / CALLS - ping) for name, total in totals.items()}


def judge(per_call: dict[str, int]) -> list[dict]:
    rows = []
    for t in TARGETS:
        value = per_call.get(t.contender)
        base = t.factor if t.of is None else (per_call.get(t.of) and t.factor * per_call[t.of])
        if value is None or not base:
            rows.append({"target": t.label(), "value": "not measured", "pass": None})
            continue
        ratio = "" if t.of is None else f" = {value / per_call[t.of]:.2f} x {t.of} ({per_call[t.of]:,})"
        rows.append({"target": t.label(), "value": f"{value:,}{ratio}", "pass": value <= base})
    return rows


def write(out: Path, per_call: dict[str, int], spread: dict[str, tuple[int, int]], targets: list[dict],
          info: dict) -> None:
    out.mkdir(parents=True, exist_ok=True)
    (out / "instructions.json").write_text(json.dumps({"machine": info, "per_call": per_call, "spread": spread,
                                                        "targets": targets}, indent=2) + "\n")
    lines = ["# winlimit: instructions per call\n",
             f"Counted by `make bench-instr` on {info['date']} ({info['redis_server']}; module {info['module']}"
             f"{'; redis-cell ' + info['cell'] if info.get('cell') else ''}): callgrind, "
             f"{'only inside processInputBuffer (--commands-only)' if info.get('commands_only') else 'the whole server'}, one "
             f"client, pipeline {PIPELINE}, {KEYS:,} keys, {CALLS:,} calls after as many to warm up, net of "
             f"what PING costs the same way; the median of {info['runs']} counts on fresh servers, with the "
             "lowest and highest.\n",
             "| contender | instructions per call, net of PING (median) | lowest | highest |", "|---|---:|---:|---:|",
             *(f"| {name} | {n:,} | {spread[name][0]:,} | {spread[name][1]:,} |" for name, n in per_call.items()),
             "", "## Targets (on the medians)\n",
             *(f"- {target_line(t)}" for t in targets), ""]
    (out / "instructions.md").write_text("\n".join(lines))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--module", type=Path, default=DEFAULT_MODULE)
    ap.add_argument("--cell", type=Path, help="a built redis-cell module (libredis_cell.so) to compare with")
    ap.add_argument("--only", type=lambda s: {x.strip().upper() for x in s.split(",")}, help="contenders to count")
    ap.add_argument("--out", type=Path, default=BENCH_DIR / "results")
    ap.add_argument("--runs", type=int, default=3, help="counts on fresh servers; the median is reported")
    ap.add_argument("--commands-only", action="store_true",
                    help="count only inside processInputBuffer (parsing, the command, its reply), not the event "
                         "loop, the cron or the socket writes, which grow with wall time per call on a busy machine")
    ap.add_argument("--redis-server", default=shutil.which("redis-server") or "redis-server")
    ap.add_argument("--redis-benchmark", default=shutil.which("redis-benchmark") or "redis-benchmark")
    args = ap.parse_args()
    for exe in ("valgrind", "callgrind_control", args.redis_server, args.redis_benchmark):
        if not shutil.which(exe):
            ap.error(f"{exe} not found (make bench-instr installs valgrind; scripts/install-deps.sh the rest)")
    if not args.module.exists():
        ap.error(f"{args.module} does not exist: run `cargo build --release` first")
    version = subprocess.run([args.redis_server, "--version"], capture_output=True, text=True).stdout.strip()
    info = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "redis_server": version,
            "module": args.module.name, "cell": str(args.cell) if args.cell else "", "runs": args.runs,
            "commands_only": args.commands_only}
    per_call, spread = measure(args)
    targets = judge(per_call)
    # Loading the module must not tax other commands (winbench.tax): its own section and targets.
    others = tax.measure(args.runs, Counted, args.module, MODULE_ARGS, args.redis_server, args.redis_benchmark, CALLS)
    targets += tax.targets(others)
    write(args.out, per_call, spread, targets, info)
    with (args.out / "instructions.md").open("a") as md:
        md.write("\n" + "\n".join(tax.section(others, args.runs)))
    data = json.loads((args.out / "instructions.json").read_text())
    (args.out / "instructions.json").write_text(json.dumps({**data, "other_commands": others}, indent=2) + "\n")
    for t in targets:
        print(target_line(t))
    print(f"wrote {args.out}/instructions.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
