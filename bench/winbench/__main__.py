"""winlimit benchmark suite.

Starts a private redis-server (free loopback port, no persistence) with the winlimit module
loaded (with cell-compat, so CL.THROTTLE is winlimit's), drives it with redis-benchmark and
compares the native commands with INCR/ZADD (the ceiling), with the Lua scripts users run
today (bench/lua/*.lua, called with EVALSHA) and, given --cell PATH, with redis-cell's
CL.THROTTLE on a server of its own (same settings). Every contender is reported as ops/s
and as the server's own µs per call (INFO commandstats). Then measures bytes and commands
appended to the AOF per call, the longest single calls at default settings, and memory per
key of every algorithm.

Every contender is one row of CONTENDERS. A contender whose command the loaded module (or
server) lacks is reported as "n/a (command missing)", not measured.

Run from the repository root:   make bench [CELL=PATH] [BENCH_ARGS=...]
                                (PYTHONPATH=tests:bench .venv/bin/python -m winbench [--cell PATH])
Smoke test (about a minute):    make bench BENCH_ARGS=--quick

Writes bench/results/latest.{md,json,png} (with --quick: bench/.tmp/results/)."""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import json
import shutil
import sys
import time
from pathlib import Path

from winbench import config
from winbench.config import BENCH_DIR, CLIENTS, DEFAULT_MODULE, KEYSPACE, LUA_DIR, MODULE_ARGS, PIPELINE, TMP
from winbench.contenders import contenders
from winbench.memory import BucketMemoryFill, measure_memory, measure_state_memory
from winbench.replication import AOF_CALLS, measure_aof
from winbench.targets import evaluate_targets, target_line
from winbench.report import machine_info, sh, summarise, write_chart, write_markdown
from winbench.servers import Server, probe
from winbench.throughput import measure, sanity
from winbench.worst import measure_worst_case


def parse_args() -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true",
                    help="smoke test: 20,000 requests, 1 round, short fills; results in bench/.tmp/results")
    ap.add_argument("--rounds", type=int, help="alternating rounds per contender (default 5)")
    ap.add_argument("--requests", type=int, help="requests per run (default 1,000,000)")
    ap.add_argument("--threads", type=int, default=1, help="redis-benchmark --threads (default 1)")
    ap.add_argument("--module", type=Path, default=DEFAULT_MODULE, help="path of libwinlimit.so")
    ap.add_argument("--no-module", action="store_true",
                    help="run only the core and Lua contenders (and redis-cell), without loading the module")
    ap.add_argument("--only", help="comma-separated contender names to run (skips memory, AOF and worst case)")
    ap.add_argument("--out", type=Path, help="output directory (default bench/results)")
    ap.add_argument("--cell", type=Path, help="a built redis-cell module (libredis_cell.so) to compare with, "
                                              "on a server of its own")
    ap.add_argument("--redis-server", default=shutil.which("redis-server") or "redis-server")
    ap.add_argument("--redis-benchmark", default=shutil.which("redis-benchmark") or "redis-benchmark")
    args = ap.parse_args()
    args.rounds = args.rounds or (1 if args.quick else 5)
    args.requests = args.requests or (20_000 if args.quick else 1_000_000)
    args.out = args.out or (TMP / "results" if args.quick else BENCH_DIR / "results")
    args.with_module = not args.no_module
    check_args(ap, args)
    return args


def check_args(ap: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    if args.rounds < 1 or args.requests < 1000:
        ap.error("need --rounds >= 1 and --requests >= 1000")
    for exe in (args.redis_server, args.redis_benchmark):
        if not shutil.which(exe):
            ap.error(f"{exe} not found (scripts/install-deps.sh installs redis-server and redis-tools)")
    if args.with_module and not args.module.exists():
        ap.error(f"{args.module} does not exist: run `cargo build --release` first "
                 f"(or pass --no-module to run only the core and Lua contenders)")
    if args.cell and not args.cell.exists():
        ap.error(f"{args.cell} does not exist")
    if args.only:
        unknown = {x.strip().upper() for x in args.only.split(",")} - {c.name for c in contenders()}
        if unknown:
            ap.error(f"unknown contenders: {', '.join(sorted(unknown))}")


def chosen_contenders(args: argparse.Namespace) -> list:
    cs = contenders()
    if args.only:
        wanted = {x.strip().upper() for x in args.only.split(",")}
        cs = [c for c in cs if c.name in wanted]
    return cs


def describe(args: argparse.Namespace) -> tuple[dict, dict]:
    """The machine and module facts (info) and the run's settings (cfg) for the report."""
    info = machine_info(args.redis_server, args.redis_benchmark)
    if args.with_module:
        st = args.module.stat()
        digest = hashlib.sha256(args.module.read_bytes()).hexdigest()[:12]
        built = dt.datetime.fromtimestamp(st.st_mtime, dt.timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")
        info["module"] = f"{args.module.name}, built {built}, sha256 {digest}, args {' '.join(MODULE_ARGS)}"
    else:
        info["module"] = "not loaded (--no-module)"
    if args.cell:
        info["cell"] = f"{args.cell}, sha256 {hashlib.sha256(args.cell.read_bytes()).hexdigest()[:12]}"
    else:
        info["cell"] = "not given (--cell PATH)"
    if sh(["sh", "-c", "pgrep -x cargo || pgrep -x rustc || true"]):
        print("warning: cargo/rustc is running; figures will be noisy", file=sys.stderr)
        info["loadavg_at_start"] += " (cargo/rustc was running)"
    cfg = {"requests": args.requests, "rounds": args.rounds, "threads": args.threads, "clients": CLIENTS,
           "pipeline": PIPELINE, "keyspace": KEYSPACE, "quick": args.quick,
           "module": str(args.module) if args.with_module else None, "cell": str(args.cell) if args.cell else None}
    return info, cfg


class Run:
    """One benchmark run: its servers, contenders and what it measured."""

    def __init__(self, args: argparse.Namespace):
        self.args = args
        self.cs = chosen_contenders(args)
        self.full_extras = not args.only
        self.modules = [(args.module, MODULE_ARGS)] if args.with_module else []
        self.server = Server(args.redis_server, self.modules, TMP / "main")
        # redis-cell registers CL.THROTTLE too: it gets a server of its own, same settings.
        self.cell = Server(args.redis_server, [(args.cell, [])], TMP / "cell") if args.cell else None
        self.aux = Server(args.redis_server, self.modules, TMP / "aux") if args.with_module and self.full_extras else None
        self.memory: list[dict] = []
        self.state_memory: list[dict] = []
        self.worst: list[dict] = []
        self.aof: list[dict] = []
        self.missing: dict[str, str] = {}  # a command (or contender) -> why it is n/a
        self.filler = None

    def start(self) -> None:
        r = self.server.start()
        cell_r = self.cell.start() if self.cell else None
        self.where = {"main": (r, self.server.port), "cell": (cell_r, self.cell.port if self.cell else 0)}
        print(f"redis-server pid {self.server.pid} on 127.0.0.1:{self.server.port}"
              f"{' with ' + str(self.args.module) if self.args.with_module else ' (no module)'}"
              + (f"; redis-cell on pid {self.cell.pid}, 127.0.0.1:{self.cell.port}" if self.cell else ""), flush=True)
        self.shas = {"fixed": r.script_load((LUA_DIR / "fixed_window.lua").read_text()),
                     "slide": r.script_load((LUA_DIR / "sliding_log.lua").read_text())}
        sanity(r, self.shas)
        self.probe_contenders(r)
        if self.aux:  # BUCKET memory: its keys fill in real time while the benchmark runs
            self.aux.start()
            win, bkt = (6000, 100) if self.args.quick else (60000, 1000)
            self.filler = BucketMemoryFill(self.aux, win, bkt)
            self.filler.start()

    def probe_contenders(self, r) -> None:
        """Marks each contender the servers cannot run, and each command the module lacks."""
        for c in self.cs:
            conn = self.where[c.server][0]
            c.status = "n/a (no --cell given)" if conn is None else probe(conn, c.argv(self.shas))
            if c.status:
                print(f"{c.name}: {c.status}", flush=True)
        for cmd in ("WINLIMIT.SLIDE", "WINLIMIT.FIXED", "WINLIMIT.GCRA", "CL.THROTTLE"):
            why = probe(r, [cmd, "probe", "60000", "1", "1", "1"][:4 if cmd != "CL.THROTTLE" else 6])
            if why == "n/a (command missing)":
                self.missing[cmd] = why
        for c in self.cs:
            if c.status and c.kind == "native":
                self.missing.setdefault(c.name, c.status)

    def measure_once(self, c, requests: int) -> dict:
        conn, port = self.where[c.server]
        return measure(c, conn, self.args.redis_benchmark, port, self.shas, requests, self.args.threads)

    def rounds(self) -> None:
        """Every live contender, round after round, alternating the order; a warm-up first."""
        live = [c for c in self.cs if not c.status]
        if not self.args.quick:  # warm-up, not recorded
            for c in live:
                self.measure_once(c, max(1000, self.args.requests // 20))
        for rnd in range(self.args.rounds):
            for c in (live if rnd % 2 == 0 else live[::-1]):
                if not c.status:
                    self.one_round(c, rnd)

    def one_round(self, c, rnd: int) -> None:
        label = f"round {rnd + 1}/{self.args.rounds} {c.name:<18}"
        try:
            res = self.measure_once(c, self.args.requests)
        except RuntimeError as e:  # reported in the table; the other contenders still run
            c.status = f"n/a (error: {str(e)[:120]})"
            c.rounds.clear()
            print(f"{label} {c.status}", flush=True)
            return
        c.rounds.append(res)
        print(f"{label} {res['ops']:>12,.0f} ops/s  srv {res['srv_usec_per_call']:.2f} us/call  "
              f"p50 {res['p50_ms']:.3f} ms  p99 {res['p99_ms']:.3f} ms  cpu {res['srv_cpu_busy'] * 100:.0f}%"
              + (f"  accepted {res['accepted_frac'] * 100:.1f}%" if "accepted_frac" in res else "")
              + (f"  {res['buckets_per_key']} buckets/key" if "buckets_per_key" in res else ""), flush=True)

    def extras(self) -> None:
        """Memory, the worst calls and the other algorithms' memory, on the main server."""
        r, cell_r = self.where["main"][0], self.where["cell"][0]
        self.memory = measure_memory(r, self.shas, self.args.quick, self.missing)
        for m in self.memory:
            print(f"memory {m['contender']:<10} limit {m['limit']:>6}: {m['bytes']:>11,.1f} B "
                  f"(sd {m['bytes_sd']:,.0f}, {m['encoding']})", flush=True)
        if not self.args.with_module:
            return
        self.worst = measure_worst_case(r, self.missing)
        for w in self.worst:
            print(f"worst case {w.get('usec', '')} us (max {w.get('usec_max', '')}, cpu "
                  f"{w.get('cpu_usec', '')}) {w.get('status', '')}: {w['call']}", flush=True)
        self.state_memory = measure_state_memory(r, cell_r, self.missing)
        if self.filler:
            self.state_memory.insert(0, self.filler.result())
        for m in self.state_memory:
            print(f"memory {m['contender']}: "
                  f"{str(m['bytes']) + ' B' if 'bytes' in m else m['status']} ({m['call']})", flush=True)

    def stop(self) -> None:
        for s in (self.server, self.cell, self.aux):
            if s:
                s.stop()

    def replication(self) -> None:
        """AOF bytes per call, each contender on a fresh server of its own."""
        args = self.args
        self.aof = measure_aof(self.cs, args.redis_server, args.module if args.with_module else None, args.cell,
                               args.redis_benchmark, 2_000 if args.quick else AOF_CALLS)
        for a in self.aof:
            if "bytes_per_call" in a:
                print(f"aof {a['contender']:<18} {a['bytes_per_call']:>7.1f} bytes/call, "
                      f"{a['commands_per_call']:.3f} commands/call, {a['multi_per_call']:.3f} MULTI/call "
                      f"{dict(a['commands'])}", flush=True)
            else:
                print(f"aof {a['contender']:<18} {a['status']}", flush=True)

    def write(self, info: dict, cfg: dict) -> list[dict]:
        """latest.json, latest.md and latest.png; returns the targets."""
        cs, out = self.cs, self.args.out
        summary = summarise(cs)
        targets = evaluate_targets(self.memory, self.state_memory, self.aof, self.worst)
        out.mkdir(parents=True, exist_ok=True)
        (out / "latest.json").write_text(json.dumps({
            "machine": info, "config": cfg,
            "contenders": {c.name: {"group": c.group, "kind": c.kind, "describe": c.describe,
                                    "command": c.command, "server": c.server, "status": c.status or "measured",
                                    "lua_peer": c.lua_peer, "rounds": c.rounds,
                                    "median": summary.get(c.name)} for c in cs},
            "memory": self.memory, "memory_other": self.state_memory, "aof": self.aof, "worst_case": self.worst,
            "targets": targets,
        }, indent=2) + "\n")
        write_markdown(out / "latest.md", info, cfg, cs, summary, self.memory, self.state_memory, self.aof,
                       self.worst, targets)
        write_chart(out / "latest.png", cs, summary, self.memory)
        return targets


def main() -> int:
    args = parse_args()
    config.REDIS_BENCHMARK = args.redis_benchmark
    info, cfg = describe(args)
    t_start = time.monotonic()
    run = Run(args)
    try:
        run.start()
        run.rounds()
        if run.full_extras:
            run.extras()
    finally:
        run.stop()
    if run.full_extras:
        run.replication()
    cfg["runtime_s"] = round(time.monotonic() - t_start, 1)
    targets = run.write(info, cfg)
    print()
    for t in targets:
        print(target_line(t))
    print(f"\nwrote {args.out}/latest.md, latest.json, latest.png in {cfg['runtime_s']} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
