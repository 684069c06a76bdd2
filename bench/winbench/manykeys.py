"""`make bench`'s many-keys profile (`python -m winbench.manykeys`): the commands on 100,000
random keys, 64 clients, pipeline 16, one server, as a cache-sized keyspace meets them (the
main run uses 10,000 keys and `make bench-instr` 1,000, whose state stays in the CPU caches).

Per contender and round: the keyspace is flushed, warmed up by WARM_UP calls of the
contender (unrecorded), then RUN calls are measured. Reported: requests per second of the
server's own CPU time (`used_cpu_user + used_cpu_sys` of `INFO cpu` around the run, divided
into the calls `INFO commandstats` counted), which another process taking the cores moves
far less than wall time, and redis-benchmark's own requests/s beside it. Contenders run in
alternating order (forward, then backward) for ROUNDS rounds; the median is reported, and
each ratio to INCR is the median of the per-round ratios (both from the same round).

Contenders: INCR; the module's FIXED, GCRA, SLIDE and BUCKET in `make bench-instr`'s shapes
(every call accepted); the library's three commands (FCALL of lua/winlimit.lua); the Lua
anchors of bench/lua/ in the same shapes.

Writes bench/results/many-keys.{md,json} (--out DIR elsewhere)."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import redis

from kit.lua_library import library_text
from winbench.config import BENCH_DIR, DEFAULT_MODULE, LUA_DIR, R, TMP
from winbench.contenders import BUCKET_ARGS
from winbench.servers import Server

KEYS = 100_000
CLIENTS = 64
PIPELINE = 16
WARM_UP = 50_000
RUN = 150_000
ROUNDS = 3

# name -> (the command INFO commandstats counts, argv with {sha} names of bench/lua scripts)
CONTENDERS = {
    "INCR": ("incr", ["INCR", f"mk:in:{R}"]),
    "FIXED": ("winlimit.fixed", ["WINLIMIT.FIXED", f"mk:fx:{R}", "600000", "1000000000"]),
    "GCRA": ("winlimit.gcra", ["WINLIMIT.GCRA", f"mk:gc:{R}", "60000", "100"]),
    "SLIDE": ("winlimit.slide", ["WINLIMIT.SLIDE", f"mk:sl:{R}", "600000", "10000"]),
    "BUCKET": ("winlimit.slide", ["WINLIMIT.SLIDE", f"mk:bk:{R}", *BUCKET_ARGS]),
    "LIB_FIXED": ("fcall", ["FCALL", "winlimit_fixed", "1", f"mk:lfx:{R}", "600000", "1000000000"]),
    "LIB_GCRA": ("fcall", ["FCALL", "winlimit_gcra", "1", f"mk:lgc:{R}", "60000", "100"]),
    "LIB_SLIDE": ("fcall", ["FCALL", "winlimit_slide", "1", f"mk:lsl:{R}", "600000", "10000"]),
    "LUA_FIXED": ("evalsha", ["EVALSHA", "{fixed}", "1", f"mk:afx:{R}", "600000", "1000000000"]),
    "LUA_GCRA_FLOAT": ("evalsha", ["EVALSHA", "{gcra_float}", "1", f"mk:agc:{R}", "100", "100", "60", "1"]),
    "LUA_SLIDE": ("evalsha", ["EVALSHA", "{slide}", "1", f"mk:asl:{R}", "600000", "10000"]),
}
SCRIPTS = {"fixed": "fixed_window.lua", "gcra_float": "gcra_float.lua", "slide": "sliding_log.lua"}


def benchmark(rb: str, port: int, argv: list[str], requests: int) -> float:
    """redis-benchmark's requests/s for one run."""
    cmd = [rb, "-h", "127.0.0.1", "-p", str(port), "-c", str(CLIENTS), "-P", str(PIPELINE), "-r", str(KEYS),
           "-n", str(requests), "--csv", *argv]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=900, check=True)
    return float(p.stdout.strip().splitlines()[-1].split(",")[1].strip('"'))


def counters(r: redis.Redis, command: str) -> tuple[int, float, int]:
    """(calls of `command`, the server's CPU seconds, error replies) now."""
    stats = r.info("commandstats").get(f"cmdstat_{command}", {})
    cpu = r.info("cpu")
    errors = r.info("stats").get("total_error_replies", 0)
    return int(stats.get("calls", 0)), float(cpu["used_cpu_user"]) + float(cpu["used_cpu_sys"]), int(errors)


def run_one(r: redis.Redis, rb: str, port: int, command: str, argv: list[str], requests: int) -> dict:
    r.flushall(asynchronous=False)
    benchmark(rb, port, argv, WARM_UP)
    calls0, cpu0, errors0 = counters(r, command)
    rps = benchmark(rb, port, argv, requests)
    calls1, cpu1, errors1 = counters(r, command)
    if errors1 != errors0:
        raise RuntimeError(f"{argv[0]}: {errors1 - errors0} error replies: {r.info('errorstats')}")
    calls = calls1 - calls0
    if calls < requests:
        raise RuntimeError(f"{argv[0]}: the server counted {calls} calls, want {requests}")
    return {"cpu_rps": calls / (cpu1 - cpu0), "rb_rps": rps, "cpu_s": cpu1 - cpu0, "keys": r.dbsize()}


def median(values: list[float]) -> float:
    values = sorted(values)
    mid = len(values) // 2
    return values[mid] if len(values) % 2 else (values[mid - 1] + values[mid]) / 2


def measure(args: argparse.Namespace) -> dict[str, list[dict]]:
    server = Server(args.redis_server, [(args.module, [])], TMP / "many-keys")
    r = server.start()
    try:
        shas = {name: r.script_load((LUA_DIR / file).read_text()) for name, file in SCRIPTS.items()}
        r.execute_command("FUNCTION", "LOAD", "REPLACE", library_text())
        names = [n for n in CONTENDERS if not args.only or n in args.only]
        rounds: dict[str, list[dict]] = {n: [] for n in names}
        for i in range(args.rounds):
            for name in names if i % 2 == 0 else reversed(names):
                command, argv = CONTENDERS[name]
                argv = [a.format(**shas) for a in argv]
                rounds[name].append(run_one(r, args.redis_benchmark, server.port, command, argv, args.requests))
                last = rounds[name][-1]
                print(f"round {i + 1} {name:<15} {last['cpu_rps']:>12,.0f} per CPU second "
                      f"{last['rb_rps']:>12,.0f} redis-benchmark", flush=True)
    finally:
        server.stop()
    return rounds


def summary(rounds: dict[str, list[dict]]) -> dict[str, dict]:
    out = {}
    for name, runs in rounds.items():
        row = {"cpu_rps": median([x["cpu_rps"] for x in runs]), "rb_rps": median([x["rb_rps"] for x in runs])}
        if "INCR" in rounds and name != "INCR":
            row["vs_incr"] = median([x["cpu_rps"] / y["cpu_rps"] for x, y in zip(runs, rounds["INCR"])])
        out[name] = row
    return out


def write(out: Path, rows: dict[str, dict], rounds: dict[str, list[dict]], info: dict) -> None:
    out.mkdir(parents=True, exist_ok=True)
    (out / "many-keys.json").write_text(json.dumps({"machine": info, "summary": rows, "rounds": rounds}, indent=2)
                                        + "\n")
    lines = ["# winlimit: many keys\n",
             f"`make bench` (`python -m winbench.manykeys`) on {info['date']}, {info['redis_server']}, "
             f"{info['cpus']} CPUs: one server, {KEYS:,} random keys, {CLIENTS} clients, pipeline {PIPELINE}; per "
             f"round and contender the keyspace is flushed, warmed up by {WARM_UP:,} calls, then {info['requests']:,} "
             f"calls are measured; the median of {info['rounds']} alternating rounds. *per CPU second*: calls "
             "divided by the server's own CPU time (`INFO cpu`, user + sys) over the run; *vs. INCR*: the "
             "median of the per-round ratios of that figure.\n",
             "| contender | requests per CPU second | redis-benchmark requests/s | vs. INCR |",
             "|---|---:|---:|---:|",
             *(f"| {name} | {row['cpu_rps']:,.0f} | {row['rb_rps']:,.0f} | "
               f"{format(row['vs_incr'], '.2f') + ' x' if 'vs_incr' in row else ''} |" for name, row in rows.items()),
             ""]
    (out / "many-keys.md").write_text("\n".join(lines))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--module", type=Path, default=DEFAULT_MODULE)
    ap.add_argument("--rounds", type=int, default=ROUNDS)
    ap.add_argument("--requests", type=int, default=RUN, help="measured calls per run")
    ap.add_argument("--only", type=lambda s: [x.strip().upper() for x in s.split(",")], help="contenders to run")
    ap.add_argument("--out", type=Path, default=BENCH_DIR / "results")
    ap.add_argument("--redis-server", default=shutil.which("redis-server") or "redis-server")
    ap.add_argument("--redis-benchmark", default=shutil.which("redis-benchmark") or "redis-benchmark")
    args = ap.parse_args()
    if not args.module.exists():
        ap.error(f"{args.module} does not exist: run `cargo build --release` first")
    version = subprocess.run([args.redis_server, "--version"], capture_output=True, text=True).stdout.strip()
    info = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "redis_server": version,
            "cpus": len(os.sched_getaffinity(0)), "rounds": args.rounds, "requests": args.requests}
    rounds = measure(args)
    write(args.out, summary(rounds), rounds, info)
    print(f"wrote {args.out}/many-keys.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
