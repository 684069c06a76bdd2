#!/usr/bin/env python3
"""winlimit benchmark suite.

Starts a private redis-server (free loopback port, no persistence) with the
winlimit module loaded (with cell-compat, so CL.THROTTLE is winlimit's), drives
it with redis-benchmark and compares the native commands with INCR/ZADD (the
ceiling), with the Lua scripts users run today (bench/lua/*.lua, called with
EVALSHA) and, given --cell PATH, with redis-cell's CL.THROTTLE on a server of
its own. Then measures bytes appended to the AOF per call, the longest single
calls at default settings, and memory per key.

Run from the repository root:   .venv/bin/python bench/bench.py
Smoke test (seconds):            .venv/bin/python bench/bench.py --quick

Writes bench/results/latest.{md,json,png} (with --quick: bench/.tmp/results/).
"""

from __future__ import annotations

import argparse
import csv
import datetime as dt
import hashlib
import io
import json
import math
import os
import platform
import shutil
import socket
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import redis

BENCH_DIR = Path(__file__).resolve().parent
REPO = BENCH_DIR.parent
LUA_DIR = BENCH_DIR / "lua"
DEFAULT_MODULE = REPO / "target" / "release" / "libwinlimit.so"

CLIENTS = 50
PIPELINE = 16
KEYSPACE = 10_000
MEMORY_LIMITS = (10, 100, 1000, 10_000)

# Targets (see the issues): thresholds used for the PASS/FAIL lines.
T_FIXED_VS_INCR = 0.55
T_SLIDE_VS_LUA = 3.5
T_HOT_VS_LUA = 4.0
T_SIZE_FLAT = 0.80  # ops/s at 10,000 entries >= 0.80 x ops/s at 10 entries
T_FIXED_VS_CELL_US = 0.5  # FIXED server µs/call <= half of redis-cell's
T_GCRA_VS_CELL_US = 1 / 1.8
T_TWO_WINDOWS_US = 1.25
T_SLIDE_AOF_BYTES = 80
T_WORST_CALL_US = 10_000
T_BUCKET_61_BYTES = 2048


# --------------------------------------------------------------------------
# contenders


@dataclass
class Contender:
    name: str
    group: str  # "random", "hot", "size"
    kind: str  # "core", "native", "lua"
    describe: str
    # argv for redis-benchmark, given the script SHAs
    argv: Callable[[dict], list[str]]
    command_stat: str  # name in INFO commandstats
    lua_peer: str | None = None  # name of the Lua counterpart (for native)
    setup: Callable[[redis.Redis], None] | None = None
    accepted: Callable[[redis.Redis], int] | None = None  # units recorded after the run
    needs_module: bool = False
    keyspace: int = KEYSPACE
    server: str = "main"  # "main", or "cell" (redis-cell's own server)
    rounds: list[dict] = field(default_factory=list)


def _scan_sum(r: redis.Redis, pattern: str, how: str) -> int:
    total = 0
    keys = list(r.scan_iter(match=pattern, count=1000))
    for i in range(0, len(keys), 1000):
        pipe = r.pipeline(transaction=False)
        for k in keys[i:i + 1000]:
            if how == "zcard":
                pipe.zcard(k)
            else:
                pipe.get(k)
        total += sum(int(v or 0) for v in pipe.execute())
    return total


def _prefill_spread(key: str, n: int, window_ms: int) -> Callable[[redis.Redis], None]:
    """A sorted set holding n entries spread evenly over the last window:
    one entry leaves the window every window_ms/n ms, so a hammered key
    accepts about one call per window_ms/n ms and rejects the rest."""

    def setup(r: redis.Redis) -> None:
        sec, usec = r.time()
        now = sec * 1000 + usec // 1000
        step = window_ms / n
        pipe = r.pipeline(transaction=False)
        batch = {}
        for i in range(n):
            score = now - window_ms + int((i + 1) * step)
            batch[str(score * 1000 + i % 1000)] = score
            if len(batch) == 1000:
                pipe.zadd(key, batch)
                batch = {}
        if batch:
            pipe.zadd(key, batch)
        pipe.pexpire(key, window_ms)
        pipe.execute()
        assert r.zcard(key) == n, f"prefill of {key} gave {r.zcard(key)} entries, want {n}"

    return setup


SIZE_STEP_MS = 10  # window = N * 10 ms: the same accept rate (~100/s) for every N

BUCKET_KEYS = 1000
BUCKET_ARGS = ["6000", "1000000", "BUCKET", "100"]  # 61 buckets per key


def _prefill_buckets(prefix: str, keys: int) -> Callable[[redis.Redis], None]:
    """Keys whose every bucket of `6000 ... BUCKET 100` is occupied, as a warm-up longer
    than the window leaves them: the steady state, where a bucket leaves every 100 ms."""

    def setup(r: redis.Redis) -> None:
        sec, usec = r.time()
        now = sec * 1000 + usec // 1000
        newest = now // 100 * 100
        oldest = newest - 60 * 100
        fields = {str(oldest + i * 100): 5 for i in range(61)}
        pipe = r.pipeline(transaction=False)
        for i in range(keys):
            key = f"{prefix}{i:012d}"
            pipe.hset(key, mapping={**fields, "bucket_ms": 100, "total": 5 * 61,
                                    "oldest": oldest, "newest": newest})
            pipe.pexpireat(key, newest + 99 + 6000 + 750)
        pipe.execute()

    return setup


def make_contenders(with_module: bool, with_cell: bool) -> list[Contender]:
    R = "__rand_int__"
    cs = [
        Contender("INCR", "random", "core", "INCR on a random key (ceiling)",
                  lambda s: ["INCR", f"incr:{R}"], "incr"),
        Contender("ZADD", "random", "core", "ZADD of a random member to a random key (ceiling)",
                  lambda s: ["ZADD", f"zadd:{R}", R, R], "zadd"),
        Contender("FIXED", "random", "native", "WINLIMIT.FIXED key 60000 100, random key",
                  lambda s: ["WINLIMIT.FIXED", f"fx:{R}", "60000", "100"], "winlimit.fixed",
                  lua_peer="LUA_FIXED", accepted=lambda r: _scan_sum(r, "fx:*", "get"),
                  needs_module=True),
        Contender("SLIDE", "random", "native", "WINLIMIT.SLIDE key 60000 100, random key",
                  lambda s: ["WINLIMIT.SLIDE", f"sl:{R}", "60000", "100"], "winlimit.slide",
                  lua_peer="LUA_SLIDE", accepted=lambda r: _scan_sum(r, "sl:*", "zcard"),
                  needs_module=True),
        Contender("LUA_FIXED", "random", "lua", "fixed_window.lua (GET, INCR, PEXPIRE), random key",
                  lambda s: ["EVALSHA", s["fixed"], "1", f"lfx:{R}", "60000", "100"], "evalsha",
                  accepted=lambda r: _scan_sum(r, "lfx:*", "get")),
        Contender("LUA_SLIDE", "random", "lua",
                  "sliding_log.lua (TIME, ZREMRANGEBYSCORE, ZCARD, ZADD, PEXPIRE), random key",
                  lambda s: ["EVALSHA", s["slide"], "1", f"lsl:{R}", "60000", "100"], "evalsha",
                  accepted=lambda r: _scan_sum(r, "lsl:*", "zcard")),
        Contender("SLIDE_HOT", "hot", "native", "WINLIMIT.SLIDE on one key, 60000 ms, limit 1000",
                  lambda s: ["WINLIMIT.SLIDE", "hot:slide", "60000", "1000"], "winlimit.slide",
                  lua_peer="LUA_SLIDE_HOT", accepted=lambda r: r.zcard("hot:slide"),
                  needs_module=True),
        Contender("LUA_SLIDE_HOT", "hot", "lua", "sliding_log.lua on one key, 60000 ms, limit 1000",
                  lambda s: ["EVALSHA", s["slide"], "1", "hot:lua", "60000", "1000"], "evalsha",
                  accepted=lambda r: r.zcard("hot:lua")),
    ]
    cs += [
        Contender("SLIDE_TWO_WINDOWS", "random", "native",
                  "WINLIMIT.SLIDE key 1000 1000 60000 100 (the short window never binds), random key",
                  lambda s: ["WINLIMIT.SLIDE", f"sl2:{R}", "1000", "1000", "60000", "100"], "winlimit.slide",
                  accepted=lambda r: _scan_sum(r, "sl2:*", "zcard"), needs_module=True),
        Contender("BUCKET_STEADY", "random", "native",
                  f"WINLIMIT.SLIDE key 6000 1000000 BUCKET 100 on {BUCKET_KEYS} keys, every bucket occupied",
                  lambda s: ["WINLIMIT.SLIDE", f"bks:{R}", *BUCKET_ARGS], "winlimit.slide",
                  setup=_prefill_buckets("bks:", BUCKET_KEYS), needs_module=True, keyspace=BUCKET_KEYS),
        Contender("BUCKET_FRESH", "random", "native", "WINLIMIT.SLIDE key 6000 1000000 BUCKET 100, random fresh key",
                  lambda s: ["WINLIMIT.SLIDE", f"bkf:{R}", *BUCKET_ARGS], "winlimit.slide", needs_module=True),
        Contender("GCRA", "random", "native", "WINLIMIT.GCRA key 60000 100 BURST 100, random key",
                  lambda s: ["WINLIMIT.GCRA", f"gc:{R}", "60000", "100", "BURST", "100"], "winlimit.gcra",
                  needs_module=True),
        Contender("CELL_COMPAT", "random", "native", "CL.THROTTLE key 99 100 60 answered by winlimit, random key",
                  lambda s: ["CL.THROTTLE", f"cc:{R}", "99", "100", "60"], "cl.throttle", needs_module=True),
    ]
    for n in (10, 10_000):
        w = n * SIZE_STEP_MS
        cs.append(Contender(
            f"SLIDE_FULL_{n}", "size", "native",
            f"WINLIMIT.SLIDE on one key holding a full window of {n} entries ({w} ms, limit {n})",
            (lambda s, n=n, w=w: ["WINLIMIT.SLIDE", f"full:slide:{n}", str(w), str(n)]),
            "winlimit.slide", lua_peer=f"LUA_SLIDE_FULL_{n}",
            setup=_prefill_spread(f"full:slide:{n}", n, w), needs_module=True))
        cs.append(Contender(
            f"LUA_SLIDE_FULL_{n}", "size", "lua",
            f"sliding_log.lua on one key holding a full window of {n} entries ({w} ms, limit {n})",
            (lambda s, n=n, w=w: ["EVALSHA", s["slide"], "1", f"full:lua:{n}", str(w), str(n)]),
            "evalsha", setup=_prefill_spread(f"full:lua:{n}", n, w)))
    if with_cell:
        cs.append(Contender("REDIS_CELL", "random", "core", "redis-cell's CL.THROTTLE key 99 100 60, random key",
                            lambda s: ["CL.THROTTLE", f"rc:{R}", "99", "100", "60"], "cl.throttle",
                            server="cell"))
    if not with_module:
        cs = [c for c in cs if not c.needs_module]
    return cs


# --------------------------------------------------------------------------
# server


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    def __init__(self, redis_server: str, module: Path | None, workdir: Path, module_args=(), extra=()):
        self.redis_server = redis_server
        self.module = module
        self.module_args = list(module_args)
        self.extra = list(extra)
        self.workdir = workdir
        self.proc: subprocess.Popen | None = None
        self.port = 0

    def start(self) -> redis.Redis:
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        log = self.workdir / f"redis-{self.port}.log"
        cmd = [self.redis_server, "--port", str(self.port), "--bind", "127.0.0.1",
               "--save", "", "--appendonly", "no", "--daemonize", "no",
               "--dir", str(self.workdir), "--logfile", str(log)]
        if self.module:
            cmd += ["--loadmodule", str(self.module), *self.module_args]
        cmd += self.extra
        self.proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        r = redis.Redis(host="127.0.0.1", port=self.port, decode_responses=True)
        deadline = time.monotonic() + 10
        while True:
            if self.proc.poll() is not None:
                tail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
                raise RuntimeError(f"redis-server exited with {self.proc.returncode}:\n{tail}")
            try:
                if r.ping():
                    return r
            except redis.exceptions.ConnectionError:
                pass
            except redis.exceptions.BusyLoadingError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("redis-server did not answer PING within 10 s")
            time.sleep(0.05)

    def stop(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        try:
            redis.Redis(host="127.0.0.1", port=self.port, socket_timeout=5).shutdown(nosave=True)
        except Exception:
            pass  # shutdown closes the connection; errors here are expected
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.terminate()  # our own child, by PID
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


# --------------------------------------------------------------------------
# measurement


def run_benchmark(rb: str, port: int, argv: list[str], requests: int, threads: int,
                  keyspace: int = KEYSPACE) -> dict:
    cmd = [rb, "-h", "127.0.0.1", "-p", str(port), "-c", str(CLIENTS), "-P", str(PIPELINE),
           "-r", str(keyspace), "-n", str(requests), "--csv"]
    if threads > 1:
        cmd += ["--threads", str(threads)]
    cmd += argv
    t0 = time.monotonic()
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
    elapsed = time.monotonic() - t0
    if p.returncode != 0:
        raise RuntimeError(f"redis-benchmark failed ({p.returncode}): {p.stderr.strip()}")
    rows = list(csv.DictReader(io.StringIO(p.stdout)))
    if not rows:
        raise RuntimeError(f"no CSV output from redis-benchmark: {p.stdout!r} {p.stderr!r}")
    row = rows[-1]
    return {
        "ops": float(row["rps"]),
        "avg_ms": float(row["avg_latency_ms"]),
        "p50_ms": float(row["p50_latency_ms"]),
        "p99_ms": float(row["p99_latency_ms"]),
        "max_ms": float(row["max_latency_ms"]),
        "wall_s": round(elapsed, 3),
    }


def server_stats(r: redis.Redis, command_stat: str) -> dict:
    cs = r.info("commandstats").get(f"cmdstat_{command_stat}", {})
    cpu = r.info("cpu")
    stats = r.info("stats")
    return {
        "calls": int(cs.get("calls", 0)),
        "usec": int(cs.get("usec", 0)),
        "cpu_s": float(cpu["used_cpu_user"]) + float(cpu["used_cpu_sys"]),
        "errors": int(stats.get("total_error_replies", 0)),
    }


def measure(c: Contender, r: redis.Redis, rb: str, port: int, shas: dict,
            requests: int, threads: int) -> dict:
    r.flushall(asynchronous=False)
    if c.setup:
        c.setup(r)
    r.config_resetstat()
    before = server_stats(r, c.command_stat)
    res = run_benchmark(rb, port, c.argv(shas), requests, threads, c.keyspace)
    after = server_stats(r, c.command_stat)
    calls = after["calls"] - before["calls"]
    errors = after["errors"] - before["errors"]
    if errors:
        raise RuntimeError(f"{c.name}: the server answered {errors} calls with an error; "
                           f"errorstats: {r.info('errorstats')}")
    if calls < requests:
        raise RuntimeError(f"{c.name}: server saw {calls} calls of {c.command_stat}, want {requests}")
    res["srv_usec_per_call"] = (after["usec"] - before["usec"]) / calls
    res["srv_cpu_usec_per_op"] = (after["cpu_s"] - before["cpu_s"]) * 1e6 / calls
    # share of one core the server used while the benchmark ran: near 100% means
    # the server is the bottleneck, well below means redis-benchmark is
    res["srv_cpu_busy"] = (after["cpu_s"] - before["cpu_s"]) / res["wall_s"]
    if c.accepted:
        res["accepted_frac"] = c.accepted(r) / requests
    return res


# --------------------------------------------------------------------------
# memory


def fill_full(r: redis.Redis, call: Callable, limit: int) -> list:
    """Call limit+1 times in pipelined batches; return all replies."""
    out = []
    todo = limit + 1
    while todo:
        n = min(todo, 1000)
        pipe = r.pipeline(transaction=False)
        for _ in range(n):
            call(pipe)
        out += pipe.execute()
        todo -= n
    return out


def measure_memory(r: redis.Redis, shas: dict, with_module: bool, quick: bool) -> list[dict]:
    """MEMORY USAGE of keys holding a full window, averaged over several keys:
    a skiplist's node levels are random, so two keys holding the same entries
    differ by a few hundred bytes. Key names have the same length for every
    contender (the key name is part of MEMORY USAGE)."""
    rows = []
    variants = [
        ("SLIDE", "slide", "nsl", lambda p, k, L: p.execute_command("WINLIMIT.SLIDE", k, 60000, L), True),
        ("LUA_SLIDE", "slide", "lsl", lambda p, k, L: p.evalsha(shas["slide"], 1, k, 60000, L), False),
        ("FIXED", "fixed", "nfx", lambda p, k, L: p.execute_command("WINLIMIT.FIXED", k, 60000, L), True),
        ("LUA_FIXED", "fixed", "lfx", lambda p, k, L: p.evalsha(shas["fixed"], 1, k, 60000, L), False),
    ]
    for limit in MEMORY_LIMITS:
        nkeys = 5 if quick else (20 if limit <= 1000 else 10)
        for name, family, tag, call, native in variants:
            if native and not with_module:
                continue
            r.flushall(asynchronous=False)
            sizes, encodings = [], set()
            for i in range(nkeys):
                key = f"mem:{tag}:{limit:05d}:{i:02d}"
                replies = fill_full(r, lambda p: call(p, key, limit), limit)
                allowed = sum(int(x[0]) for x in replies)
                if allowed != limit or int(replies[-1][0]) != 0:
                    raise RuntimeError(f"memory fill {name} limit {limit}: {allowed} allowed, "
                                       f"last reply {replies[-1]}")
                held = r.zcard(key) if family == "slide" else int(r.get(key))
                if held != limit:
                    raise RuntimeError(f"memory fill {name} limit {limit}: key holds {held}")
                sizes.append(int(r.memory_usage(key, samples=0)))
                encodings.add(r.object("encoding", key))
            mean = statistics.fmean(sizes)
            rows.append({"contender": name, "family": family, "limit": limit, "keys": nkeys,
                         "bytes": round(mean, 1), "bytes_min": min(sizes), "bytes_max": max(sizes),
                         "bytes_sd": round(statistics.stdev(sizes), 1) if len(sizes) > 1 else 0.0,
                         "bytes_per_entry": round(mean / limit, 2),
                         "encoding": "/".join(sorted(encodings))})
    r.flushall(asynchronous=False)
    return rows


# --------------------------------------------------------------------------
# replication cost, worst case, memory of the newer algorithms

AOF_CALLS = 20_000
AOF_KEYS = 100


def measure_aof(redis_server: str, module: Path | None, cell: Path | None, rb: str, shas_src: dict,
                workdir: Path) -> list[dict]:
    """Bytes appended to the AOF per call in the steady state (keys already exist), and
    whether calls are wrapped in MULTI/EXEC (two or more replicated commands)."""
    shapes = [("INCR", "core", ["INCR", "a:__rand_int__"]),
              ("LUA_SLIDE", "lua", None)]
    if module:
        shapes += [("FIXED", "main", ["WINLIMIT.FIXED", "a:__rand_int__", "60000", "1000000000"]),
                   ("SLIDE", "main", ["WINLIMIT.SLIDE", "a:__rand_int__", "60000", "10000"]),
                   ("SLIDE_TWO_WINDOWS", "main", ["WINLIMIT.SLIDE", "a:__rand_int__", "1000", "10000", "60000", "10000"]),
                   ("BUCKET", "main", ["WINLIMIT.SLIDE", "a:__rand_int__", "60000", "1000000000", "BUCKET", "1000"]),
                   # 60 ms of TAT per call: the keys stay alive through the run (steady state).
                   ("GCRA", "main", ["WINLIMIT.GCRA", "a:__rand_int__", "60000", "1000", "BURST", "1000000"]),
                   ("CELL_COMPAT", "main", ["CL.THROTTLE", "a:__rand_int__", "999999", "1000", "60"])]
    if cell:
        shapes.append(("REDIS_CELL", "cell", ["CL.THROTTLE", "a:__rand_int__", "999999", "1000", "60"]))
    rows = []
    for name, where, argv in shapes:
        srv = Server(redis_server, module if where == "main" else None, workdir / "aof",
                     module_args=["cell-compat", "yes"],
                     extra=["--appendonly", "yes", "--appendfsync", "no",
                            *(["--loadmodule", str(cell)] if where == "cell" else [])])
        r = srv.start()
        try:
            if argv is None:
                sha = r.script_load(shas_src["slide"])
                argv = ["EVALSHA", sha, "1", "a:__rand_int__", "60000", "10000"]
            for _ in range(50):  # the initial rewrite, then the steady state: keys exist
                if not r.info("persistence").get("aof_rewrite_in_progress"):
                    break
                time.sleep(0.1)
            run_benchmark(rb, srv.port, argv, AOF_KEYS * 20, 1, AOF_KEYS)
            before = _aof_files(srv.workdir)
            run_benchmark(rb, srv.port, argv, AOF_CALLS, 1, AOF_KEYS)
            after = _aof_files(srv.workdir)
            appended = after[1][len(before[1]):] if after[0] == before[0] else after[1]
            rows.append({"contender": name, "bytes_per_call": round(len(appended) / AOF_CALLS, 1),
                         "multi_per_call": round(appended.count(b"\r\nMULTI\r\n") / AOF_CALLS, 3)})
        finally:
            srv.stop()
            shutil.rmtree(workdir / "aof", ignore_errors=True)
    return rows


def _aof_files(workdir: Path) -> tuple[str, bytes]:
    """The AOF being appended to: the newest incremental file (Redis 7+), or appendonly.aof."""
    incr = sorted((workdir / "appendonlydir").glob("*.incr.aof"))
    path = incr[-1] if incr else workdir / "appendonly.aof"
    return str(path), path.read_bytes()


def measure_worst_case(r: redis.Redis) -> list[dict]:
    """The longest single calls at default settings (SLOWLOG durations, µs)."""
    r.flushall(asynchronous=False)
    r.config_set("slowlog-log-slower-than", 0)
    r.config_set("slowlog-max-len", 4096)
    default = 10_000
    try:
        r.execute_command("WINLIMIT.SLIDE", "probe", 1000, 10**12)
    except redis.ResponseError as e:
        default = int(str(e).rsplit(" ", 1)[1])
    rows = []

    def timed(label, *command):
        r.slowlog_reset()
        reply = r.execute_command(*command)
        took = max(e["duration"] for e in r.slowlog_get(4096) if e["command"].upper().startswith(command[0].encode()))
        rows.append({"call": label, "usec": took, "reply": [int(x) for x in reply]})

    timed(f"SLIDE COST {default} (the default max-limit) on a fresh key",
          "WINLIMIT.SLIDE", "w:fresh", 60000, default, "COST", default)
    r.execute_command("WINLIMIT.SLIDE", "w:leave", 300, default, "COST", default)
    time.sleep(0.4)
    timed(f"first SLIDE after a full log of {default} left the window", "WINLIMIT.SLIDE", "w:leave", 300, default)
    sec, usec = r.time()
    now = sec * 1000 + usec // 1000
    for start in range(0, default, 1000):
        r.zadd("w:full", {str(1_000_000_000 + i): now - default + i for i in range(start, min(start + 1000, default))})
    timed(f"rejected SLIDE COST {default // 2} on a full log of {default} distinct times (computes retry_after)",
          "WINLIMIT.SLIDE", "w:full", 60000, default, "COST", default // 2)
    timed("SLIDE BUCKET COST 10^12 on a fresh key", "WINLIMIT.SLIDE", "w:bucket", 60000, 10**12, "BUCKET", 60,
          "COST", 10**12)
    timed("GCRA COST 10^12", "WINLIMIT.GCRA", "w:gcra", 10**12, 10**12, "COST", 10**12)
    r.config_set("slowlog-log-slower-than", 10000)
    r.flushall(asynchronous=False)
    return rows


def measure_new_memory(r: redis.Redis) -> list[dict]:
    """MEMORY USAGE of a BUCKET key with all 61 buckets of `60000 ... BUCKET 1000` occupied,
    and of a GCRA key, averaged over 20 keys each."""
    r.flushall(asynchronous=False)
    sec, _ = r.time()
    newest = sec * 1000 // 1000 * 1000
    oldest = newest - 60_000
    rows = []
    sizes = []
    for i in range(20):
        key = f"mem:bkt:{i:02d}"
        r.hset(key, mapping={**{str(oldest + j * 1000): 1000 + j for j in range(61)},
                             "bucket_ms": 1000, "total": sum(1000 + j for j in range(61)),
                             "oldest": oldest, "newest": newest})
        reply = r.execute_command("WINLIMIT.SLIDE", key, 60000, 10**6, "BUCKET", 1000)
        assert int(reply[0]) == 1 and r.hlen(key) >= 64, (reply, r.hlen(key))
        sizes.append(int(r.memory_usage(key, samples=0)))
    rows.append({"contender": "BUCKET (61 buckets)", "bytes": statistics.fmean(sizes),
                 "encoding": r.object("encoding", "mem:bkt:00")})
    sizes = []
    for i in range(20):
        key = f"mem:gcr:{i:02d}"
        r.execute_command("WINLIMIT.GCRA", key, 60000, 100, "COST", 7)
        sizes.append(int(r.memory_usage(key, samples=0)))
    rows.append({"contender": "GCRA", "bytes": statistics.fmean(sizes), "encoding": r.object("encoding", "mem:gcr:00")})
    r.flushall(asynchronous=False)
    return rows


# --------------------------------------------------------------------------
# sanity checks before measuring


def sanity(r: redis.Redis, shas: dict, with_module: bool) -> None:
    r.flushall(asynchronous=False)
    for sha, key in ((shas["slide"], "chk:lsl"), (shas["fixed"], "chk:lfx")):
        got = [r.evalsha(sha, 1, key, 60000, 3)[0] for _ in range(4)]
        assert got == [1, 1, 1, 0], f"Lua script {sha} on limit 3 gave {got}"
        assert 0 < r.pttl(key) <= 60000, f"Lua key {key} has pttl {r.pttl(key)}"
    assert r.zcard("chk:lsl") == 3 and r.get("chk:lfx") == "3"
    if with_module:
        for cmd in ("WINLIMIT.SLIDE", "WINLIMIT.FIXED", "WINLIMIT.GCRA"):
            got = [r.execute_command(cmd, f"chk:{cmd}", 60000, 3) for _ in range(4)]
            assert [int(x[0]) for x in got] == [1, 1, 1, 0] and all(len(x) == 5 for x in got), \
                f"{cmd} on limit 3 gave {got}"
    r.flushall(asynchronous=False)


# --------------------------------------------------------------------------
# reporting


def sh(cmd: list[str]) -> str:
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=10).stdout.strip()
    except Exception as e:  # noqa: BLE001
        return f"? ({e})"


def machine_info(redis_server: str, rb: str) -> dict:
    cpu = "?"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = "?"
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal"):
                mem = f"{int(line.split()[1]) // 1024} MiB"
    except OSError:
        pass
    commit = sh(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"])
    if sh(["git", "-C", str(REPO), "status", "--porcelain", "--", "src", "Cargo.toml"]):
        commit += " (src modified)"
    return {
        "date": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "nproc": sh(["nproc"]),
        "cpu": cpu,
        "memory": mem,
        "kernel": platform.release(),
        "redis_server": sh([redis_server, "--version"]),
        "redis_benchmark": sh([rb, "--version"]),
        "git_commit": commit,
        "loadavg_at_start": " ".join(f"{x:.2f}" for x in os.getloadavg()),
    }


def summarise(cs: list[Contender]) -> dict[str, dict]:
    out = {}
    for c in cs:
        if not c.rounds:
            continue
        m = {k: statistics.median(x[k] for x in c.rounds)
             for k in ("ops", "p50_ms", "p99_ms", "srv_usec_per_call", "srv_cpu_usec_per_op",
                           "srv_cpu_busy")}
        m["ops_min"] = min(x["ops"] for x in c.rounds)
        m["ops_max"] = max(x["ops"] for x in c.rounds)
        if c.accepted:
            m["accepted_frac"] = statistics.median(x["accepted_frac"] for x in c.rounds)
        out[c.name] = m
    incr = out.get("INCR", {}).get("ops")
    for c in cs:
        if c.name not in out:
            continue
        m = out[c.name]
        m["x_incr"] = m["ops"] / incr if incr else None
        peer = out.get(c.lua_peer) if c.lua_peer else None
        m["x_lua"] = m["ops"] / peer["ops"] if peer else None
    return out


def evaluate_targets(summary: dict, memory: list[dict]) -> list[dict]:
    t = []

    def ratio_target(label, a, b, threshold):
        if a in summary and b in summary:
            v = summary[a]["ops"] / summary[b]["ops"]
            t.append({"target": label, "value": f"{v:.2f}x", "pass": v >= threshold})
        else:
            t.append({"target": label, "value": "not measured", "pass": None})

    ratio_target(f"FIXED >= {T_FIXED_VS_INCR} x INCR throughput (random keys)",
                 "FIXED", "INCR", T_FIXED_VS_INCR)
    ratio_target(f"SLIDE >= {T_SLIDE_VS_LUA:g} x Lua sliding log (random keys)",
                 "SLIDE", "LUA_SLIDE", T_SLIDE_VS_LUA)
    ratio_target(f"SLIDE >= {T_HOT_VS_LUA:g} x Lua sliding log (hot key)",
                 "SLIDE_HOT", "LUA_SLIDE_HOT", T_HOT_VS_LUA)
    mem = {(m["contender"], m["limit"]): m for m in memory}
    for limit in MEMORY_LIMITS:
        a, b = mem.get(("SLIDE", limit)), mem.get(("LUA_SLIDE", limit))
        label = f"SLIDE memory <= Lua sliding log, limit {limit}"
        if a is None or b is None:
            t.append({"target": label, "value": "not measured", "pass": None})
            continue
        value = f"{a['bytes']:,.0f} B vs {b['bytes']:,.0f} B (mean of {a['keys']} keys)"
        ok = a["bytes"] <= b["bytes"]
        if not ok:
            # same encoding, difference within the random-level noise of the skiplist?
            se = math.sqrt(a["bytes_sd"] ** 2 / a["keys"] + b["bytes_sd"] ** 2 / b["keys"])
            diff = a["bytes"] - b["bytes"]
            if a["encoding"] == b["encoding"] and diff <= 2 * se:
                ok = True
                value += (f": SLIDE {diff:,.0f} B larger, within the noise of random skiplist "
                          f"levels (2 standard errors = {2 * se:,.0f} B): equal")
            else:
                value += f": SLIDE {diff:,.0f} B ({diff / b['bytes'] * 100:.2f}%) larger"
        t.append({"target": label, "value": value, "pass": ok})
    ratio_target(f"SLIDE on a full window of 10,000 >= {T_SIZE_FLAT} x its speed on 10 entries",
                 "SLIDE_FULL_10000", "SLIDE_FULL_10", T_SIZE_FLAT)
    return t


def evaluate_new_targets(summary: dict, aof: list[dict], worst: list[dict], new_memory: list[dict]) -> list[dict]:
    """The round-two targets: server µs against redis-cell, two windows against one, AOF bytes,
    the worst single call, BUCKET memory."""
    t = []

    def us(name):
        return summary.get(name, {}).get("srv_usec_per_call")

    def us_target(label, a, b, factor):
        x, y = us(a), us(b)
        if x is None or y is None:
            t.append({"target": label, "value": "not measured", "pass": None})
        else:
            t.append({"target": label, "value": f"{x:.2f} vs {y:.2f} µs/call ({x / y:.2f}x)", "pass": x <= factor * y})

    us_target("FIXED server µs/call <= 1/2 of redis-cell's", "FIXED", "REDIS_CELL", T_FIXED_VS_CELL_US)
    us_target("SLIDE server µs/call <= redis-cell's", "SLIDE", "REDIS_CELL", 1.0)
    us_target("GCRA server µs/call <= 1/1.8 of redis-cell's", "GCRA", "REDIS_CELL", T_GCRA_VS_CELL_US)
    us_target("CL.THROTTLE (compat) server µs/call <= 1/1.8 of redis-cell's", "CELL_COMPAT", "REDIS_CELL",
              T_GCRA_VS_CELL_US)
    us_target("BUCKET steady state server µs/call <= redis-cell's", "BUCKET_STEADY", "REDIS_CELL", 1.0)
    us_target(f"two windows <= {T_TWO_WINDOWS_US} x the server µs of one", "SLIDE_TWO_WINDOWS", "SLIDE",
              T_TWO_WINDOWS_US)
    rows = {a["contender"]: a for a in aof}
    if "SLIDE" in rows:
        a = rows["SLIDE"]
        t.append({"target": f"accepted SLIDE appends <= {T_SLIDE_AOF_BYTES} B to the AOF, no MULTI",
                  "value": f"{a['bytes_per_call']:.1f} B, {a['multi_per_call']:.3f} MULTI/call",
                  "pass": a["bytes_per_call"] <= T_SLIDE_AOF_BYTES and a["multi_per_call"] < 0.05})
    for name in ("FIXED", "GCRA", "BUCKET"):
        if name in rows:
            a = rows[name]
            t.append({"target": f"{name}: one replicated command per call in the steady state",
                      "value": f"{a['bytes_per_call']:.1f} B, {a['multi_per_call']:.3f} MULTI/call",
                      "pass": a["multi_per_call"] < 0.05})
    if worst:
        w = max(worst, key=lambda x: x["usec"])
        t.append({"target": f"no single call at default settings over {T_WORST_CALL_US // 1000} ms",
                  "value": f"longest {w['usec']:,} µs ({w['call']})", "pass": w["usec"] <= T_WORST_CALL_US})
    for m in new_memory:
        if m["contender"].startswith("BUCKET"):
            t.append({"target": "BUCKET key with all 61 buckets of 60000 ... BUCKET 1000 under 2 KB",
                      "value": f"{m['bytes']:,.0f} B", "pass": m["bytes"] < T_BUCKET_61_BYTES})
    return t


def fmt_ops(x: float) -> str:
    return f"{x:,.0f}"


def fmt_x(x) -> str:
    return "" if x is None else f"{x:.2f}"


def write_markdown(path: Path, info: dict, cfg: dict, cs: list[Contender], summary: dict,
                   memory: list[dict], targets: list[dict], aof: list[dict], worst: list[dict],
                   new_memory: list[dict]) -> None:
    L = []
    L.append("# winlimit benchmark results\n")
    L.append(f"Generated by `bench/bench.py` on {info['date']}.\n")
    if cfg["quick"]:
        L.append("**`--quick` smoke run: too few requests and a single round; the figures "
                 "and verdicts below are not meaningful.**\n")
    L.append("## Machine\n")
    L.append("| | |\n|---|---|")
    for k, label in (("nproc", "nproc"), ("cpu", "CPU"), ("memory", "RAM"), ("kernel", "kernel"),
                     ("redis_server", "redis-server"), ("redis_benchmark", "redis-benchmark"),
                     ("git_commit", "git commit"), ("module", "module"), ("loadavg_at_start", "load average at start")):
        L.append(f"| {label} | {info[k]} |")
    L.append("")
    L.append(f"redis-benchmark: {CLIENTS} clients, pipeline {PIPELINE}, `-r {KEYSPACE}`, "
             f"{cfg['requests']:,} requests per run, {cfg['rounds']} alternating rounds "
             f"(median reported), redis-benchmark threads: {cfg['threads']}. "
             f"The keyspace is flushed before every run (prefilled where the scenario says so).\n")
    L.append("## Throughput and latency (median of rounds)\n")
    L.append("| contender | scenario | ops/s | p50 ms | p99 ms | server µs/call | server CPU | "
             "accepted | x INCR | x Lua | ops/s min..max |")
    L.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for c in cs:
        m = summary.get(c.name)
        if not m:
            continue
        acc = f"{m['accepted_frac'] * 100:.1f}%" if "accepted_frac" in m else ""
        L.append(f"| {c.name} | {c.describe} | {fmt_ops(m['ops'])} | {m['p50_ms']:.3f} | "
                 f"{m['p99_ms']:.3f} | {m['srv_usec_per_call']:.2f} | {m['srv_cpu_busy'] * 100:.0f}% | {acc} | {fmt_x(m['x_incr'])} | "
                 f"{fmt_x(m['x_lua'])} | {fmt_ops(m['ops_min'])}..{fmt_ops(m['ops_max'])} |")
    L.append("")
    L.append("- *server µs/call*: `usec_per_call` from `INFO commandstats` (time spent executing the "
             "command or script inside redis-server, excluding network I/O).")
    L.append("- *server CPU*: redis-server's user+sys CPU time during the run / the run's wall time "
             "(near 100%: the server is the bottleneck; well below: redis-benchmark is).")
    L.append("- *accepted*: share of calls recorded (units held by the keys after the run / requests).")
    L.append("- *x Lua*: ops/s of a native command divided by ops/s of its Lua counterpart in the "
             "same scenario.")
    L.append("- Latencies are as measured by redis-benchmark with pipelining (a request's latency "
             "includes waiting for its pipeline batch).\n")
    if memory:
        L.append("## Memory: `MEMORY USAGE key SAMPLES 0` of one key holding a full window\n")
        L.append("| limit | SLIDE | Lua sliding log | SLIDE / Lua | FIXED | Lua counter | FIXED / Lua |")
        L.append("|---:|---:|---:|---:|---:|---:|---:|")
        mem = {(m["contender"], m["limit"]): m for m in memory}

        def cell(name, limit):
            m = mem.get((name, limit))
            return "" if m is None else f"{m['bytes']:,.0f} B ({m['encoding']})"

        def rat(a, b, limit):
            x, y = mem.get((a, limit)), mem.get((b, limit))
            return "" if not x or not y else f"{x['bytes'] / y['bytes']:.2f}"

        for limit in MEMORY_LIMITS:
            L.append(f"| {limit:,} | {cell('SLIDE', limit)} | {cell('LUA_SLIDE', limit)} | "
                     f"{rat('SLIDE', 'LUA_SLIDE', limit)} | {cell('FIXED', limit)} | "
                     f"{cell('LUA_FIXED', limit)} | {rat('FIXED', 'LUA_FIXED', limit)} |")
        L.append("\nEach key was filled by calling the command (or script) limit+1 times "
                 "(window 60000 ms; the last call was rejected); mean over "
                 f"{', '.join(str(m['keys']) for m in memory if m['contender'] == memory[0]['contender'])} "
                 "keys per limit (skiplist node levels are random, so equal contents differ by "
                 "a few hundred bytes). SLIDE stores members as a per-key sequence of 10-digit "
                 "integers within 32 bits, the Lua log the microsecond time (16 digits).\n")
    if new_memory:
        L.append("## Memory of the newer algorithms\n")
        L.append("| key | MEMORY USAGE | encoding |\n|---|---:|---|")
        for m in new_memory:
            L.append(f"| {m['contender']} | {m['bytes']:,.0f} B | {m['encoding']} |")
        L.append("\nBUCKET: `60000 1000000 BUCKET 1000` with all 61 buckets occupied, mean of 20 keys. "
                 "GCRA: `60000 100 COST 7`.\n")
    if aof:
        L.append("## Replication cost: bytes appended to the AOF per call (steady state)\n")
        L.append("| contender | bytes/call | MULTI/EXEC per call |\n|---|---:|---:|")
        for a in aof:
            L.append(f"| {a['contender']} | {a['bytes_per_call']:.1f} | {a['multi_per_call']:.3f} |")
        L.append(f"\n{AOF_CALLS:,} calls on {AOF_KEYS} keys that already exist, limits high enough that "
                 "every call is accepted; Redis wraps two or more replicated commands of one call in "
                 "MULTI/EXEC.\n")
    if worst:
        L.append("## Worst case: the longest single calls at default settings\n")
        L.append("| call | server µs |\n|---|---:|")
        for w in worst:
            L.append(f"| {w['call']} | {w['usec']:,} |")
        L.append("\nDurations from SLOWLOG (`slowlog-log-slower-than 0`).\n")
    L.append("## Targets\n")
    for t in targets:
        verdict = {True: "PASS", False: "FAIL", None: "SKIP"}[t["pass"]]
        L.append(f"- {verdict}: {t['target']}: {t['value']}")
    L.append("")
    L.append("![chart](latest.png)\n")
    path.write_text("\n".join(L))


def write_chart(path: Path, cs: list[Contender], summary: dict, memory: list[dict]) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    colors = {"core": "#888888", "native": "#2b7bba", "lua": "#e08a2c"}
    names = [c.name for c in cs if c.name in summary]
    kinds = [c.kind for c in cs if c.name in summary]
    ops = [summary[n]["ops"] / 1000 for n in names]
    lo = [summary[n]["ops"] / 1000 - summary[n]["ops_min"] / 1000 for n in names]
    hi = [summary[n]["ops_max"] / 1000 - summary[n]["ops"] / 1000 for n in names]

    fig, axes = plt.subplots(1, 2, figsize=(15, 6.5), gridspec_kw={"width_ratios": [3, 2]})
    ax = axes[0]
    y = list(range(len(names)))[::-1]
    ax.barh(y, ops, xerr=[lo, hi], color=[colors[k] for k in kinds], capsize=2)
    ax.set_yticks(y, names)
    ax.set_xlabel("thousand ops/s (median; whiskers: min..max of rounds)")
    ax.set_title(f"Throughput: redis-benchmark, {CLIENTS} clients, pipeline {PIPELINE}")
    for yi, v, h in zip(y, ops, hi):
        ax.text(v + h, yi, f"  {v:,.0f}k", va="center", fontsize=8)
    ax.grid(axis="x", alpha=0.3)
    from matplotlib.patches import Patch
    ax.legend(handles=[Patch(color=colors[k], label=lbl) for k, lbl in
                       (("core", "core command (ceiling)"), ("native", "winlimit"),
                        ("lua", "Lua script (EVALSHA)"))], loc="lower right")

    ax = axes[1]
    if memory:
        series = [("SLIDE", "#2b7bba"), ("LUA_SLIDE", "#e08a2c"),
                  ("FIXED", "#7fb3de"), ("LUA_FIXED", "#f2c18d")]
        present = [s for s in series if any(m["contender"] == s[0] for m in memory)]
        width = 0.8 / max(1, len(present))
        for i, (name, col) in enumerate(present):
            xs, vs = [], []
            for j, limit in enumerate(MEMORY_LIMITS):
                for m in memory:
                    if m["contender"] == name and m["limit"] == limit:
                        xs.append(j + (i - (len(present) - 1) / 2) * width)
                        vs.append(m["bytes"])
            ax.bar(xs, vs, width, label=name, color=col)
        ax.set_yscale("log")
        ax.set_xticks(range(len(MEMORY_LIMITS)), [f"{x:,}" for x in MEMORY_LIMITS])
        ax.set_xlabel("limit (key holding a full window)")
        ax.set_ylabel("MEMORY USAGE, bytes (log)")
        ax.set_title("Memory per key")
        ax.legend()
        ax.grid(axis="y", alpha=0.3)
    else:
        ax.set_axis_off()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


# --------------------------------------------------------------------------


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true",
                    help="smoke test: 20,000 requests, 1 round, results in bench/.tmp/results")
    ap.add_argument("--rounds", type=int, help="alternating rounds per contender (default 5)")
    ap.add_argument("--requests", type=int, help="requests per run (default 1,000,000)")
    ap.add_argument("--threads", type=int, default=1, help="redis-benchmark --threads (default 1)")
    ap.add_argument("--module", type=Path, default=DEFAULT_MODULE, help="path of libwinlimit.so")
    ap.add_argument("--no-module", action="store_true",
                    help="run only INCR/ZADD/Lua contenders, without loading the module")
    ap.add_argument("--only", help="comma-separated contender names to run")
    ap.add_argument("--out", type=Path, help="output directory (default bench/results)")
    ap.add_argument("--cell", type=Path, help="a built redis-cell module (libredis_cell.so) to compare with")
    ap.add_argument("--redis-server", default=shutil.which("redis-server") or "redis-server")
    ap.add_argument("--redis-benchmark", default=shutil.which("redis-benchmark") or "redis-benchmark")
    args = ap.parse_args()

    rounds = args.rounds or (1 if args.quick else 5)
    requests = args.requests or (20_000 if args.quick else 1_000_000)
    out = args.out or (BENCH_DIR / ".tmp" / "results" if args.quick else BENCH_DIR / "results")
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
    cs = make_contenders(with_module, args.cell is not None)
    if args.only:
        wanted = {x.strip().upper() for x in args.only.split(",")}
        unknown = wanted - {c.name for c in cs}
        if unknown:
            ap.error(f"unknown contenders: {', '.join(sorted(unknown))}")
        cs = [c for c in cs if c.name in wanted]

    info = machine_info(args.redis_server, args.redis_benchmark)
    if with_module:
        st = args.module.stat()
        digest = hashlib.sha256(args.module.read_bytes()).hexdigest()[:12]
        built = dt.datetime.fromtimestamp(st.st_mtime, dt.timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")
        info["module"] = f"{args.module.name}, built {built}, sha256 {digest}"
    else:
        info["module"] = "not loaded (--no-module)"
    busy = sh(["sh", "-c", "pgrep -x cargo || pgrep -x rustc || true"])
    if busy:
        print("warning: cargo/rustc is running; figures will be noisy", file=sys.stderr)
        info["loadavg_at_start"] += " (cargo/rustc was running)"
    cfg = {"requests": requests, "rounds": rounds, "threads": args.threads, "clients": CLIENTS,
           "pipeline": PIPELINE, "keyspace": KEYSPACE, "quick": args.quick,
           "module": str(args.module) if with_module else None}

    t_start = time.monotonic()
    server = Server(args.redis_server, args.module if with_module else None, BENCH_DIR / ".tmp",
                    module_args=["cell-compat", "yes"])
    # redis-cell registers CL.THROTTLE too: it gets a server of its own, same settings.
    cell = Server(args.redis_server, None, BENCH_DIR / ".tmp" / "cell",
                  extra=["--loadmodule", str(args.cell)]) if args.cell else None
    aof, worst, new_memory = [], [], []
    try:
        r = server.start()
        cell_r = cell.start() if cell else None
        where = {"main": (r, server.port), "cell": (cell_r, cell.port if cell else 0)}
        print(f"redis-server pid {server.proc.pid} on 127.0.0.1:{server.port}"
              f"{' with ' + str(args.module) if with_module else ' (no module)'}", flush=True)
        shas = {
            "fixed": r.script_load((LUA_DIR / "fixed_window.lua").read_text()),
            "slide": r.script_load((LUA_DIR / "sliding_log.lua").read_text()),
        }
        sanity(r, shas, with_module)

        if not args.quick:  # warm-up, not recorded
            for c in cs:
                measure(c, where[c.server][0], args.redis_benchmark, where[c.server][1], shas,
                        max(1000, requests // 20), args.threads)
        for rnd in range(rounds):
            order = cs if rnd % 2 == 0 else cs[::-1]
            for c in order:
                res = measure(c, where[c.server][0], args.redis_benchmark, where[c.server][1], shas, requests,
                              args.threads)
                c.rounds.append(res)
                print(f"round {rnd + 1}/{rounds} {c.name:<18} {res['ops']:>12,.0f} ops/s  "
                      f"p50 {res['p50_ms']:.3f} ms  p99 {res['p99_ms']:.3f} ms  "
                      f"srv {res['srv_usec_per_call']:.2f} us/call cpu {res['srv_cpu_busy'] * 100:.0f}%"
                      + (f"  accepted {res['accepted_frac'] * 100:.1f}%" if "accepted_frac" in res else ""),
                      flush=True)
        memory = [] if args.only else measure_memory(r, shas, with_module, args.quick)
        for m in memory:
            print(f"memory {m['contender']:<10} limit {m['limit']:>6}: {m['bytes']:>11,.1f} B "
                  f"(sd {m['bytes_sd']:,.0f}, {m['encoding']})", flush=True)
        if with_module and not args.only:
            new_memory = measure_new_memory(r)
            for m in new_memory:
                print(f"memory {m['contender']}: {m['bytes']:,.1f} B ({m['encoding']})", flush=True)
            worst = measure_worst_case(r)
            for w in worst:
                print(f"worst case {w['usec']:>7,} us: {w['call']}", flush=True)
    finally:
        server.stop()
        if cell:
            cell.stop()
    if not args.only:
        aof = measure_aof(args.redis_server, args.module if with_module else None, args.cell,
                          args.redis_benchmark, {"slide": (LUA_DIR / "sliding_log.lua").read_text()},
                          BENCH_DIR / ".tmp")
        for a in aof:
            print(f"aof {a['contender']:<18} {a['bytes_per_call']:>7.1f} bytes/call, "
                  f"{a['multi_per_call']:.3f} MULTI/call", flush=True)

    summary = summarise(cs)
    targets = evaluate_targets(summary, memory) + evaluate_new_targets(summary, aof, worst, new_memory)
    cfg["runtime_s"] = round(time.monotonic() - t_start, 1)
    out.mkdir(parents=True, exist_ok=True)
    (out / "latest.json").write_text(json.dumps({
        "machine": info, "config": cfg,
        "contenders": {c.name: {"group": c.group, "kind": c.kind, "describe": c.describe,
                                "lua_peer": c.lua_peer, "rounds": c.rounds,
                                "median": summary.get(c.name)} for c in cs},
        "memory": memory, "memory_new": new_memory, "aof": aof, "worst_case": worst, "targets": targets,
    }, indent=2) + "\n")
    write_markdown(out / "latest.md", info, cfg, cs, summary, memory, targets, aof, worst, new_memory)
    write_chart(out / "latest.png", cs, summary, memory)
    print()
    for t in targets:
        verdict = {True: "PASS", False: "FAIL", None: "SKIP"}[t["pass"]]
        print(f"{verdict}: {t['target']}: {t['value']}")
    print(f"\nwrote {out}/latest.md, latest.json, latest.png in {cfg['runtime_s']} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
