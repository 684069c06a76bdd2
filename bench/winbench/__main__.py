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
from winbench.report import evaluate_targets, machine_info, sh, summarise, verdict, write_chart, write_markdown
from winbench.servers import Server, probe
from winbench.throughput import measure, sanity
from winbench.worst import measure_worst_case


def main() -> int:
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

    config.REDIS_BENCHMARK = args.redis_benchmark
    rounds = args.rounds or (1 if args.quick else 5)
    requests = args.requests or (20_000 if args.quick else 1_000_000)
    out = args.out or (TMP / "results" if args.quick else BENCH_DIR / "results")
    with_module = not args.no_module
    if rounds < 1 or requests < 1000:
        ap.error("need --rounds >= 1 and --requests >= 1000")
    for exe in (args.redis_server, args.redis_benchmark):
        if not shutil.which(exe):
            ap.error(f"{exe} not found (scripts/install-deps.sh installs redis-server and redis-tools)")
    if with_module and not args.module.exists():
        ap.error(f"{args.module} does not exist: run `cargo build --release` first "
                 f"(or pass --no-module to run only the core and Lua contenders)")
    if args.cell and not args.cell.exists():
        ap.error(f"{args.cell} does not exist")
    cs = contenders()
    if args.only:
        wanted = {x.strip().upper() for x in args.only.split(",")}
        unknown = wanted - {c.name for c in cs}
        if unknown:
            ap.error(f"unknown contenders: {', '.join(sorted(unknown))}")
        cs = [c for c in cs if c.name in wanted]
    full_extras = not args.only

    info = machine_info(args.redis_server, args.redis_benchmark)
    if with_module:
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
    busy = sh(["sh", "-c", "pgrep -x cargo || pgrep -x rustc || true"])
    if busy:
        print("warning: cargo/rustc is running; figures will be noisy", file=sys.stderr)
        info["loadavg_at_start"] += " (cargo/rustc was running)"
    cfg = {"requests": requests, "rounds": rounds, "threads": args.threads, "clients": CLIENTS,
           "pipeline": PIPELINE, "keyspace": KEYSPACE, "quick": args.quick,
           "module": str(args.module) if with_module else None, "cell": str(args.cell) if args.cell else None}

    t_start = time.monotonic()
    modules = [(args.module, MODULE_ARGS)] if with_module else []
    server = Server(args.redis_server, modules, TMP / "main")
    # redis-cell registers CL.THROTTLE too: it gets a server of its own, same settings.
    cell = Server(args.redis_server, [(args.cell, [])], TMP / "cell") if args.cell else None
    aux = Server(args.redis_server, modules, TMP / "aux") if with_module and full_extras else None
    memory, state_memory, worst, aof = [], [], [], []
    missing: dict[str, str] = {}  # a command (or contender) -> why it is n/a
    filler = None
    try:
        r = server.start()
        cell_r = cell.start() if cell else None
        where = {"main": (r, server.port), "cell": (cell_r, cell.port if cell else 0)}
        print(f"redis-server pid {server.pid} on 127.0.0.1:{server.port}"
              f"{' with ' + str(args.module) if with_module else ' (no module)'}"
              + (f"; redis-cell on pid {cell.pid}, 127.0.0.1:{cell.port}" if cell else ""), flush=True)
        shas = {"fixed": r.script_load((LUA_DIR / "fixed_window.lua").read_text()),
                "slide": r.script_load((LUA_DIR / "sliding_log.lua").read_text())}
        sanity(r, shas)
        for c in cs:
            conn = where[c.server][0]
            if conn is None:
                c.status = "n/a (no --cell given)"
            else:
                c.status = probe(conn, c.argv(shas))
            if c.status:
                print(f"{c.name}: {c.status}", flush=True)
        for cmd in ("WINLIMIT.SLIDE", "WINLIMIT.FIXED", "WINLIMIT.GCRA", "CL.THROTTLE"):
            why = probe(r, [cmd, "probe", "60000", "1", "1", "1"][:4 if cmd != "CL.THROTTLE" else 6])
            if why == "n/a (command missing)":
                missing[cmd] = why
        for c in cs:
            if c.status and c.kind == "native":
                missing.setdefault(c.name, c.status)
        if aux:  # BUCKET memory: its keys fill in real time while the benchmark runs
            aux.start()
            win, bkt = (6000, 100) if args.quick else (60000, 1000)
            filler = BucketMemoryFill(aux, win, bkt)
            filler.start()

        live = [c for c in cs if not c.status]
        if not args.quick:  # warm-up, not recorded
            for c in live:
                measure(c, where[c.server][0], args.redis_benchmark, where[c.server][1], shas,
                        max(1000, requests // 20), args.threads)
        for rnd in range(rounds):
            order = live if rnd % 2 == 0 else live[::-1]
            for c in order:
                if c.status:
                    continue
                try:
                    res = measure(c, where[c.server][0], args.redis_benchmark, where[c.server][1], shas,
                                  requests, args.threads)
                except RuntimeError as e:  # reported in the table; the other contenders still run
                    c.status = f"n/a (error: {str(e)[:120]})"
                    c.rounds.clear()
                    print(f"round {rnd + 1}/{rounds} {c.name:<18} {c.status}", flush=True)
                    continue
                c.rounds.append(res)
                print(f"round {rnd + 1}/{rounds} {c.name:<18} {res['ops']:>12,.0f} ops/s  "
                      f"srv {res['srv_usec_per_call']:.2f} us/call  p50 {res['p50_ms']:.3f} ms  "
                      f"p99 {res['p99_ms']:.3f} ms  cpu {res['srv_cpu_busy'] * 100:.0f}%"
                      + (f"  accepted {res['accepted_frac'] * 100:.1f}%" if "accepted_frac" in res else "")
                      + (f"  {res['buckets_per_key']} buckets/key" if "buckets_per_key" in res else ""),
                      flush=True)
        if full_extras:
            memory = measure_memory(r, shas, args.quick, missing)
            for m in memory:
                print(f"memory {m['contender']:<10} limit {m['limit']:>6}: {m['bytes']:>11,.1f} B "
                      f"(sd {m['bytes_sd']:,.0f}, {m['encoding']})", flush=True)
            if with_module:
                worst = measure_worst_case(r, missing)
                for w in worst:
                    print(f"worst case {w.get('usec', '')} us (max {w.get('usec_max', '')}, cpu "
                          f"{w.get('cpu_usec', '')}) {w.get('status', '')}: {w['call']}", flush=True)
                state_memory = measure_state_memory(r, cell_r, missing)
                if filler:
                    state_memory.insert(0, filler.result())
                for m in state_memory:
                    print(f"memory {m['contender']}: "
                          f"{str(m['bytes']) + ' B' if 'bytes' in m else m['status']} ({m['call']})", flush=True)
    finally:
        for s in (server, cell, aux):
            if s:
                s.stop()
    if full_extras:
        aof = measure_aof(cs, args.redis_server, args.module if with_module else None, args.cell,
                          args.redis_benchmark, 2_000 if args.quick else AOF_CALLS)
        for a in aof:
            if "bytes_per_call" in a:
                print(f"aof {a['contender']:<18} {a['bytes_per_call']:>7.1f} bytes/call, "
                      f"{a['commands_per_call']:.3f} commands/call, {a['multi_per_call']:.3f} MULTI/call "
                      f"{dict(a['commands'])}", flush=True)
            else:
                print(f"aof {a['contender']:<18} {a['status']}", flush=True)

    summary = summarise(cs)
    targets = evaluate_targets(cs, summary, memory, state_memory, aof, worst)
    cfg["runtime_s"] = round(time.monotonic() - t_start, 1)
    out.mkdir(parents=True, exist_ok=True)
    (out / "latest.json").write_text(json.dumps({
        "machine": info, "config": cfg,
        "contenders": {c.name: {"group": c.group, "kind": c.kind, "describe": c.describe,
                                "command": c.command, "server": c.server, "status": c.status or "measured",
                                "lua_peer": c.lua_peer, "rounds": c.rounds,
                                "median": summary.get(c.name)} for c in cs},
        "memory": memory, "memory_other": state_memory, "aof": aof, "worst_case": worst, "targets": targets,
    }, indent=2) + "\n")
    write_markdown(out / "latest.md", info, cfg, cs, summary, memory, state_memory, aof, worst, targets)
    write_chart(out / "latest.png", cs, summary, memory)
    print()
    for t in targets:
        print(f"{verdict(t['pass'])}: {t['target']}: {t['value']}")
    print(f"\nwrote {out}/latest.md, latest.json, latest.png in {cfg['runtime_s']} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
