#!/usr/bin/env python3
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

Run from the repository root:   .venv/bin/python bench/bench.py [--cell PATH]
Smoke test (about a minute):    .venv/bin/python bench/bench.py --quick

Writes bench/results/latest.{md,json,png} (with --quick: bench/.tmp/results/).
"""

from __future__ import annotations

import argparse
import collections
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
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import redis

from kit import bucket_layout

BENCH_DIR = Path(__file__).resolve().parent
REPO = BENCH_DIR.parent

LUA_DIR = BENCH_DIR / "lua"
TMP = BENCH_DIR / ".tmp"
DEFAULT_MODULE = REPO / "target" / "release" / "libwinlimit.so"
MODULE_ARGS = ["cell-compat", "yes"]
REDIS_BENCHMARK = shutil.which("redis-benchmark") or "redis-benchmark"  # --redis-benchmark sets it

CLIENTS = 50
PIPELINE = 16
KEYSPACE = 10_000
MEMORY_LIMITS = (10, 100, 1000, 10_000)
R = "__rand_int__"  # redis-benchmark replaces it with a 12-digit number below -r

# Targets (issues 3 and 9): thresholds of the PASS/FAIL lines.
T_FIXED_VS_INCR = 0.55  # ops/s
T_SLIDE_VS_LUA = 3.5  # ops/s, random keys
T_HOT_VS_LUA = 4.0  # ops/s, one hot key
T_SIZE_FLAT = 0.80  # ops/s at 10,000 entries >= 0.80 x ops/s at 10 entries
T_FIXED_VS_CELL_US = 0.5  # FIXED server µs/call <= half of redis-cell's
T_GCRA_VS_CELL_US = 1 / 1.8
T_TWO_WINDOWS_US = 1.25
T_SLIDE_AOF_BYTES = 80
T_WORST_CALL_US = 10_000
T_BUCKET_61_BYTES = 2048


# --------------------------------------------------------------------------
# the contenders: one table


@dataclass
class Aof:
    """How to measure a contender's replication cost: one call with limits high enough that
    every call is accepted, on `keys` keys that `warm` calls each (or `setup`) already made."""
    argv: Callable[[dict], list[str]]
    keys: int = 100
    warm: int = 20
    setup: Callable[[redis.Redis], None] | None = None
    note: str = ""


@dataclass
class Contender:
    name: str
    kind: str  # "core", "native" (winlimit), "lua", "cell" (redis-cell)
    group: str  # "random", "hot", "size"
    describe: str
    command: str  # the command one call runs: its name in INFO commandstats
    argv: Callable[[dict], list[str]]  # redis-benchmark's argv, given the script SHAs
    server: str = "main"  # "main", or "cell" (redis-cell's own server)
    lua_peer: str | None = None  # the Lua counterpart of a native contender
    keyspace: int = KEYSPACE
    setup: Callable[[redis.Redis], None] | None = None  # after the flush, before the run
    held: Callable[[redis.Redis], int] | None = None  # units recorded, where INFO winlimit cannot tell
    aof: Aof | None = None
    status: str = ""  # empty when measured; else why not ("n/a (command missing)")
    rounds: list[dict] = field(default_factory=list)


def _scan_sum(pattern: str, how: str) -> Callable[[redis.Redis], int]:
    def held(r: redis.Redis) -> int:
        total = 0
        keys = list(r.scan_iter(match=pattern, count=1000))
        for i in range(0, len(keys), 1000):
            pipe = r.pipeline(transaction=False)
            for k in keys[i:i + 1000]:
                pipe.zcard(k) if how == "zcard" else pipe.get(k)
            total += sum(int(v or 0) for v in pipe.execute())
        return total

    return held


def now_ms(r: redis.Redis) -> int:
    sec, usec = r.time()
    return sec * 1000 + usec // 1000


def _prefill_spread(key: str, n: int, window_ms: int) -> Callable[[redis.Redis], None]:
    """A sorted set holding n entries spread evenly over the last window: one entry leaves
    the window every window_ms/n ms, so a hammered key accepts about one call per
    window_ms/n ms and rejects the rest."""

    def setup(r: redis.Redis) -> None:
        now = now_ms(r)
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
        if r.zcard(key) != n:
            raise RuntimeError(f"prefill of {key} gave {r.zcard(key)} entries, want {n}")

    return setup


SIZE_STEP_MS = 10  # window = N * 10 ms: the same accept rate (~100/s) for every N

BUCKET_KEYS = 1000
BUCKET_WINDOW_MS, BUCKET_MS = 6000, 100  # 61 buckets per key
BUCKET_ARGS = [str(BUCKET_WINDOW_MS), "1000000", "BUCKET", str(BUCKET_MS)]


def held_buckets(r: redis.Redis, keys: list[str]) -> dict:
    """The fewest counted buckets a key of `keys` holds (README "Keys": a string ring, read
    by tests/bucket_layout.py); nothing when the keys have another layout."""
    kw = r.connection_pool.connection_kwargs
    rb = redis.Redis(host=kw["host"], port=kw["port"])  # the ring is bytes, not text
    logs = [bucket_layout.decode(rb.get(k)) if rb.type(k) == b"string" else None for k in keys]
    if any(log is None for log in logs):
        return {}
    return {"buckets_per_key": min(len(log["buckets"]) for log in logs)}


def fill_buckets(r: redis.Redis, keys: list[str], args: list, window_ms: int, bucket_ms: int,
                 stop: threading.Event | None = None) -> dict:
    """Calls `WINLIMIT.SLIDE key *args` on every key four times per bucket for longer than the
    window (and on until `stop` is set, if given), so every bucket a key can hold is occupied:
    the steady state as the module itself leaves it (a bucket leaves every bucket_ms)."""
    per_bucket = 4
    step = bucket_ms / 1000 / per_bucket
    t0 = time.monotonic()
    i = 0
    while i < (window_ms // bucket_ms + 2) * per_bucket or (stop is not None and not stop.is_set()):
        pipe = r.pipeline(transaction=False)
        for k in keys:
            pipe.execute_command("WINLIMIT.SLIDE", k, *args)
        replies = pipe.execute()
        if not all(int(x[0]) == 1 for x in replies):
            raise RuntimeError(f"bucket fill: a call was rejected: {replies[:3]}")
        i += 1
        delay = t0 + i * step - time.monotonic()
        if delay > 0:
            time.sleep(delay)
    return held_buckets(r, keys)


def _bucket_warmup(prefix: str, keys: int) -> Callable[[redis.Redis], dict]:
    """The BUCKET steady state: redis-benchmark drives the scenario's own call on its keys
    for longer than the window (each key gets about 20 calls per bucket, so every bucket is
    occupied), then the run starts."""

    def setup(r: redis.Redis) -> dict:
        port = r.connection_pool.connection_kwargs["port"]
        argv = ["WINLIMIT.SLIDE", f"{prefix}{R}", *BUCKET_ARGS]
        end = time.monotonic() + (BUCKET_WINDOW_MS + 2 * BUCKET_MS) / 1000
        while time.monotonic() < end:
            run_benchmark(REDIS_BENCHMARK, port, argv, 50 * keys, 1, keys)
        return held_buckets(r, [f"{prefix}{i:012d}" for i in range(0, keys, max(1, keys // 20))])

    return setup


def _full(n: int, native: bool) -> Contender:
    w = n * SIZE_STEP_MS
    if native:
        return Contender(
            f"SLIDE_FULL_{n}", "native", "size",
            f"WINLIMIT.SLIDE on one key holding a full window of {n} entries ({w} ms, limit {n})",
            "winlimit.slide", lambda s: ["WINLIMIT.SLIDE", f"full:slide:{n}", str(w), str(n)],
            lua_peer=f"LUA_SLIDE_FULL_{n}", setup=_prefill_spread(f"full:slide:{n}", n, w))
    return Contender(
        f"LUA_SLIDE_FULL_{n}", "lua", "size",
        f"sliding_log.lua on one key holding a full window of {n} entries ({w} ms, limit {n})",
        "evalsha", lambda s: ["EVALSHA", s["slide"], "1", f"full:lua:{n}", str(w), str(n)],
        setup=_prefill_spread(f"full:lua:{n}", n, w))


CONTENDERS: list[Contender] = [
    Contender("INCR", "core", "random", "INCR on a random key (the ceiling)", "incr",
              lambda s: ["INCR", f"incr:{R}"],
              aof=Aof(lambda s: ["INCR", f"a:{R}"])),
    Contender("FIXED", "native", "random", "WINLIMIT.FIXED key 60000 100, random key", "winlimit.fixed",
              lambda s: ["WINLIMIT.FIXED", f"fx:{R}", "60000", "100"], lua_peer="LUA_FIXED",
              aof=Aof(lambda s: ["WINLIMIT.FIXED", f"a:{R}", "60000", "1000000000"])),
    Contender("LUA_FIXED", "lua", "random", "fixed_window.lua (GET, INCR, PEXPIRE), random key", "evalsha",
              lambda s: ["EVALSHA", s["fixed"], "1", f"lfx:{R}", "60000", "100"],
              held=_scan_sum("lfx:*", "get"),
              aof=Aof(lambda s: ["EVALSHA", s["fixed"], "1", f"a:{R}", "60000", "1000000000"])),
    Contender("GCRA", "native", "random", "WINLIMIT.GCRA key 60000 100 BURST 100, random key", "winlimit.gcra",
              lambda s: ["WINLIMIT.GCRA", f"gc:{R}", "60000", "100", "BURST", "100"],
              aof=Aof(lambda s: ["WINLIMIT.GCRA", f"a:{R}", "60000", "10000", "BURST", "10000"])),
    Contender("CELL_COMPAT", "native", "random", "CL.THROTTLE key 99 100 60 answered by winlimit, random key",
              "cl.throttle", lambda s: ["CL.THROTTLE", f"cc:{R}", "99", "100", "60"],
              aof=Aof(lambda s: ["CL.THROTTLE", f"a:{R}", "9999", "10000", "60"])),
    Contender("REDIS_CELL", "cell", "random", "redis-cell's CL.THROTTLE key 99 100 60, random key",
              "cl.throttle", lambda s: ["CL.THROTTLE", f"rc:{R}", "99", "100", "60"], server="cell",
              aof=Aof(lambda s: ["CL.THROTTLE", f"a:{R}", "9999", "10000", "60"],
                      note="redis-cell replicates the command itself")),
    Contender("SLIDE", "native", "random", "WINLIMIT.SLIDE key 60000 100, random key", "winlimit.slide",
              lambda s: ["WINLIMIT.SLIDE", f"sl:{R}", "60000", "100"], lua_peer="LUA_SLIDE",
              aof=Aof(lambda s: ["WINLIMIT.SLIDE", f"a:{R}", "60000", "10000"])),
    Contender("BUCKET_STEADY", "native", "random",
              f"WINLIMIT.SLIDE key {' '.join(BUCKET_ARGS)} on {BUCKET_KEYS:,} keys, every bucket occupied "
              f"(warmed up by the command for longer than the window)",
              "winlimit.slide", lambda s: ["WINLIMIT.SLIDE", f"bks:{R}", *BUCKET_ARGS],
              keyspace=BUCKET_KEYS, setup=_bucket_warmup("bks:", BUCKET_KEYS),
              aof=Aof(lambda s: ["WINLIMIT.SLIDE", f"bks:{R}", *BUCKET_ARGS], keys=BUCKET_KEYS,
                      setup=_bucket_warmup("bks:", BUCKET_KEYS),
                      note="buckets roll: a call that opens a bucket also drops the oldest")),
    Contender("BUCKET_FRESH", "native", "random", f"WINLIMIT.SLIDE key {' '.join(BUCKET_ARGS)}, random fresh key",
              "winlimit.slide", lambda s: ["WINLIMIT.SLIDE", f"bkf:{R}", *BUCKET_ARGS],
              aof=Aof(lambda s: ["WINLIMIT.SLIDE", f"a:{R}", *BUCKET_ARGS],
                      note="keys exist; nothing leaves the window while it is measured")),
    Contender("SLIDE_TWO_WINDOWS", "native", "random",
              "WINLIMIT.SLIDE key 1000 1000 60000 100 (the short window never binds), random key",
              "winlimit.slide", lambda s: ["WINLIMIT.SLIDE", f"sl2:{R}", "1000", "1000", "60000", "100"],
              aof=Aof(lambda s: ["WINLIMIT.SLIDE", f"a:{R}", "1000", "10000", "60000", "10000"])),
    Contender("LUA_SLIDE", "lua", "random",
              "sliding_log.lua (TIME, ZREMRANGEBYSCORE, ZCARD, ZADD, PEXPIRE), random key", "evalsha",
              lambda s: ["EVALSHA", s["slide"], "1", f"lsl:{R}", "60000", "100"],
              held=_scan_sum("lsl:*", "zcard"),
              aof=Aof(lambda s: ["EVALSHA", s["slide"], "1", f"a:{R}", "60000", "10000"])),
    Contender("ZADD", "core", "random", "ZADD of a random member to a random key (the ceiling)", "zadd",
              lambda s: ["ZADD", f"zadd:{R}", R, R],
              aof=Aof(lambda s: ["ZADD", f"a:{R}", R, R])),
    Contender("SLIDE_HOT", "native", "hot", "WINLIMIT.SLIDE on one key, 60000 ms, limit 1000", "winlimit.slide",
              lambda s: ["WINLIMIT.SLIDE", "hot:slide", "60000", "1000"], lua_peer="LUA_SLIDE_HOT"),
    Contender("LUA_SLIDE_HOT", "lua", "hot", "sliding_log.lua on one key, 60000 ms, limit 1000", "evalsha",
              lambda s: ["EVALSHA", s["slide"], "1", "hot:lua", "60000", "1000"],
              held=lambda r: r.zcard("hot:lua")),
    _full(10, True), _full(10, False), _full(10_000, True), _full(10_000, False),
]


def contenders() -> list[Contender]:
    """Fresh copies of the table (rounds and status are filled in per run)."""
    return [Contender(**{k: v for k, v in c.__dict__.items() if k not in ("rounds", "status")})
            for c in CONTENDERS]


# --------------------------------------------------------------------------
# servers


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """A redis-server of our own on a free loopback port, stopped by PID. `modules` are
    (path, args) pairs; every server gets the same settings."""

    def __init__(self, redis_server: str, modules: list[tuple[Path, list[str]]], workdir: Path, extra=()):
        self.redis_server = redis_server
        self.modules = modules
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
        for path, args in self.modules:
            cmd += ["--loadmodule", str(path), *args]
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
            except (redis.exceptions.ConnectionError, redis.exceptions.BusyLoadingError):
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


def probe(r: redis.Redis, argv: list[str]) -> str:
    """Empty if one call of argv (on a probe key) answers; else why the contender is n/a."""
    try:
        r.execute_command(*[a.replace(R, "0" * 12) for a in argv])
    except redis.ResponseError as e:
        msg = str(e)
        if msg.lower().startswith("unknown command"):
            return "n/a (command missing)"
        return f"n/a ({msg.strip()[:80]})"
    finally:
        r.flushall(asynchronous=False)
    return ""


# --------------------------------------------------------------------------
# throughput and server µs per call


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


def server_stats(r: redis.Redis, command: str) -> dict:
    cs = r.info("commandstats").get(f"cmdstat_{command}", {})
    cpu = r.info("cpu")
    stats = r.info("stats")
    return {
        "calls": int(cs.get("calls", 0)),
        "usec": int(cs.get("usec", 0)),
        "cpu_s": float(cpu["used_cpu_user"]) + float(cpu["used_cpu_sys"]),
        "errors": int(stats.get("total_error_replies", 0)),
    }


def winlimit_allowed(r: redis.Redis, command: str) -> int | None:
    """Accepted calls of `command` since CONFIG RESETSTAT, from INFO winlimit (None when the
    server has no such counter: core commands, Lua, redis-cell)."""
    stat = command.lower().removeprefix("winlimit.").replace(".", "_")
    try:
        v = r.info("winlimit").get(f"winlimit_{stat}_allowed")
    except redis.ResponseError:
        return None
    return None if v is None else int(v)


def measure(c: Contender, r: redis.Redis, rb: str, port: int, shas: dict,
            requests: int, threads: int) -> dict:
    r.flushall(asynchronous=False)
    t_setup = time.monotonic()
    extra = c.setup(r) if c.setup else None
    setup_s = time.monotonic() - t_setup
    r.config_resetstat()
    before = server_stats(r, c.command)
    res = run_benchmark(rb, port, c.argv(shas), requests, threads, c.keyspace)
    after = server_stats(r, c.command)
    calls = after["calls"] - before["calls"]
    errors = after["errors"] - before["errors"]
    if errors:
        raise RuntimeError(f"the server answered {errors} calls with an error: {r.info('errorstats')}")
    if calls < requests:
        raise RuntimeError(f"the server saw {calls} calls of {c.command}, want {requests}")
    res["setup_s"] = round(setup_s, 2)
    res.update(extra or {})
    res["srv_usec_per_call"] = (after["usec"] - before["usec"]) / calls
    res["srv_cpu_usec_per_op"] = (after["cpu_s"] - before["cpu_s"]) * 1e6 / calls
    # share of one core the server used while the benchmark ran: near 100% means
    # the server is the bottleneck, well below means redis-benchmark is
    res["srv_cpu_busy"] = (after["cpu_s"] - before["cpu_s"]) / res["wall_s"]
    allowed = winlimit_allowed(r, c.command) if c.kind == "native" else None
    if allowed is not None:
        res["accepted_frac"] = allowed / calls
    elif c.held:
        res["accepted_frac"] = c.held(r) / requests
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


def measure_memory(r: redis.Redis, shas: dict, quick: bool, missing: dict) -> list[dict]:
    """MEMORY USAGE of keys holding a full window, averaged over several keys: a skiplist's
    node levels are random, so two keys holding the same entries differ by a few hundred
    bytes. Key names have the same length for every contender (the key name counts)."""
    rows = []
    variants = [
        ("SLIDE", "slide", "nsl", "WINLIMIT.SLIDE", lambda p, k, L: p.execute_command("WINLIMIT.SLIDE", k, 60000, L)),
        ("LUA_SLIDE", "slide", "lsl", "", lambda p, k, L: p.evalsha(shas["slide"], 1, k, 60000, L)),
        ("FIXED", "fixed", "nfx", "WINLIMIT.FIXED", lambda p, k, L: p.execute_command("WINLIMIT.FIXED", k, 60000, L)),
        ("LUA_FIXED", "fixed", "lfx", "", lambda p, k, L: p.evalsha(shas["fixed"], 1, k, 60000, L)),
    ]
    for limit in MEMORY_LIMITS:
        nkeys = 5 if quick else (20 if limit <= 1000 else 10)
        for name, family, tag, command, call in variants:
            if command in missing:
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
            rows.append(_mem_row(name, sizes, "/".join(sorted(encodings)), family=family, limit=limit))
    r.flushall(asynchronous=False)
    return rows


def _mem_row(name: str, sizes: list[int], encoding: str, **extra) -> dict:
    mean = statistics.fmean(sizes)
    row = {"contender": name, "keys": len(sizes), "bytes": round(mean, 1), "bytes_min": min(sizes),
           "bytes_max": max(sizes), "bytes_sd": round(statistics.stdev(sizes), 1) if len(sizes) > 1 else 0.0,
           "encoding": encoding, **extra}
    if "limit" in extra:
        row["bytes_per_entry"] = round(mean / extra["limit"], 2)
    return row


MEM_KEYS = 20


class BucketMemoryFill(threading.Thread):
    """Fills MEM_KEYS keys of `window 1000000 BUCKET b` by real calls, four per key per bucket
    for longer than the window and on until result(), on a server of its own (the main server
    is flushed before every run). Its load, 4 x MEM_KEYS calls per bucket, does not disturb
    the benchmark."""

    def __init__(self, server: Server, window_ms: int, bucket_ms: int):
        super().__init__(daemon=True)
        self.server, self.window_ms, self.bucket_ms = server, window_ms, bucket_ms
        self.keys = [f"mem:bkt:{i:05d}" for i in range(MEM_KEYS)]
        self.error = ""
        self.filled: dict = {}
        self.stop = threading.Event()

    def run(self) -> None:
        try:
            r = redis.Redis(host="127.0.0.1", port=self.server.port, decode_responses=True)
            self.filled = fill_buckets(r, self.keys, [self.window_ms, 1000000, "BUCKET", self.bucket_ms],
                                       self.window_ms, self.bucket_ms, self.stop)
        except Exception as e:  # noqa: BLE001 (reported as the row's status)
            self.error = str(e)[:200]

    def result(self) -> dict:
        """Stops the calls (once the window has been filled) and measures at once, before the
        keys expire."""
        self.stop.set()
        self.join()
        label = f"BUCKET, all {self.window_ms // self.bucket_ms + 1} buckets of " \
                f"`{self.window_ms} 1000000 BUCKET {self.bucket_ms}` occupied"
        if self.error:
            return {"contender": "BUCKET", "call": label, "status": f"n/a ({self.error})"}
        r = redis.Redis(host="127.0.0.1", port=self.server.port, decode_responses=True)
        sizes = [int(r.memory_usage(k, samples=0)) for k in self.keys]
        return _mem_row("BUCKET", sizes, r.object("encoding", self.keys[0]), call=label, **self.filled)


def measure_state_memory(r: redis.Redis, cell_r: redis.Redis | None, missing: dict) -> list[dict]:
    """MEMORY USAGE of the one-string states after one call: GCRA, CL.THROTTLE (winlimit's and
    redis-cell's), FIXED at the benchmark's shape; MEM_KEYS keys each, names of equal length."""
    rows = []
    cases = [("GCRA", r, "WINLIMIT.GCRA", ["60000", "100", "BURST", "100"]),
             ("CELL_COMPAT", r, "CL.THROTTLE", ["99", "100", "60"]),
             ("REDIS_CELL", cell_r, "CL.THROTTLE", ["99", "100", "60"]),
             ("FIXED", r, "WINLIMIT.FIXED", ["60000", "100"])]
    for name, conn, cmd, args in cases:
        label = f"`{cmd} key {' '.join(args)}`, after one call"
        if conn is None or name in missing:
            rows.append({"contender": name, "call": label,
                         "status": "n/a (no --cell given)" if conn is None else missing[name]})
            continue
        conn.flushall(asynchronous=False)
        keys = [f"mem:one:{i:05d}" for i in range(MEM_KEYS)]
        for k in keys:
            conn.execute_command(cmd, k, *args)
        sizes = [int(conn.memory_usage(k, samples=0)) for k in keys]
        rows.append(_mem_row(name, sizes, conn.object("encoding", keys[0]), call=label))
        conn.flushall(asynchronous=False)
    return rows


# --------------------------------------------------------------------------
# replication cost


AOF_CALLS = 20_000


def parse_aof(data: bytes) -> collections.Counter:
    """Command names in a run of AOF (RESP arrays; `#` annotation lines skipped)."""
    names: collections.Counter = collections.Counter()
    i, n = 0, len(data)
    while i < n:
        if data[i:i + 1] == b"#":
            i = data.index(b"\r\n", i) + 2
            continue
        if data[i:i + 1] != b"*":
            raise ValueError(f"AOF: expected '*' at byte {i}, found {data[i:i + 20]!r}")
        j = data.index(b"\r\n", i)
        argc = int(data[i + 1:j])
        i = j + 2
        first = b""
        for a in range(argc):
            j = data.index(b"\r\n", i)
            ln = int(data[i + 1:j])
            if a == 0:
                first = data[j + 2:j + 2 + ln]
            i = j + 2 + ln + 2
        names[first.decode(errors="replace").upper()] += 1
    return names


def _aof_files(workdir: Path) -> tuple[str, bytes]:
    """The AOF being appended to: the newest incremental file (Redis 7+), or appendonly.aof."""
    incr = sorted((workdir / "appendonlydir").glob("*.incr.aof"))
    path = incr[-1] if incr else workdir / "appendonly.aof"
    return str(path), path.read_bytes() if path.exists() else b""


def measure_aof(cs: list[Contender], redis_server: str, module: Path | None, cell: Path | None, rb: str,
                calls: int) -> list[dict]:
    """Bytes and replicated commands appended to the AOF per call in the steady state (the
    keys already exist), each contender on a fresh server with appendonly yes, same settings."""
    rows = []
    lua = {"slide": (LUA_DIR / "sliding_log.lua").read_text(), "fixed": (LUA_DIR / "fixed_window.lua").read_text()}
    for c in cs:
        if c.aof is None:
            continue
        if c.status:
            rows.append({"contender": c.name, "status": c.status})
            continue
        modules = [(cell, [])] if c.server == "cell" else ([(module, MODULE_ARGS)] if module else [])
        workdir = TMP / "aof"
        srv = Server(redis_server, modules, workdir, extra=["--appendonly", "yes", "--appendfsync", "no"])
        r = srv.start()
        try:
            shas = {k: r.script_load(v) for k, v in lua.items()}
            argv = c.aof.argv(shas)
            for _ in range(100):  # the initial rewrite first
                if not int(r.info("persistence").get("aof_rewrite_in_progress", 0)):
                    break
                time.sleep(0.1)
            if c.aof.setup:
                c.aof.setup(r)
            else:
                run_benchmark(rb, srv.port, argv, c.aof.keys * c.aof.warm, 1, c.aof.keys)
            r.config_resetstat()
            before = _aof_files(srv.workdir)
            run_benchmark(rb, srv.port, argv, calls, 1, c.aof.keys)
            r.execute_command("PING")  # the AOF is written before the replies
            after = _aof_files(srv.workdir)
            appended = after[1][len(before[1]):] if after[0] == before[0] else after[1]
            names = parse_aof(appended)
            multi = names.get("MULTI", 0)
            replicated = sum(v for k, v in names.items() if k not in ("MULTI", "EXEC", "SELECT"))
            allowed = winlimit_allowed(r, c.command) if c.kind == "native" else None
            rows.append({"contender": c.name, "call": " ".join(argv),
                         "calls": calls, "accepted": allowed,
                         "bytes_per_call": round(len(appended) / calls, 1),
                         "commands_per_call": round(replicated / calls, 3),
                         "multi_per_call": round(multi / calls, 3),
                         "commands": {k: round(v / calls, 4) for k, v in names.most_common()},
                         "note": c.aof.note})
        finally:
            srv.stop()
            shutil.rmtree(workdir, ignore_errors=True)
    return rows


# --------------------------------------------------------------------------
# worst case


def max_limit(r: redis.Redis) -> int:
    try:
        return int(r.config_get("winlimit.max-limit")["winlimit.max-limit"])
    except (redis.ResponseError, KeyError):  # Redis 6.2: no module configs; the error names it
        try:
            r.execute_command("WINLIMIT.SLIDE", "probe", 1000, 10**12)
        except redis.ResponseError as e:
            return int(str(e).rsplit(" ", 1)[1])
        finally:
            r.delete("probe")
    return 10_000


WORST_REPS = 5


def main_thread_cpu_us(r: redis.Redis) -> float:
    cpu = r.info("cpu")
    return (float(cpu.get("used_cpu_user_main_thread", 0)) + float(cpu.get("used_cpu_sys_main_thread", 0))) * 1e6


def measure_worst_case(r: redis.Redis, missing: dict) -> list[dict]:
    """The longest single calls at default settings. Each case is called WORST_REPS times;
    its figure is the median SLOWLOG duration (slowlog-log-slower-than 0): durations are wall
    time, so on a shared machine one call now and then is preempted and takes several times
    its work (the longest is reported too, with the server main thread's CPU time around the
    call, which preemption does not inflate)."""
    r.flushall(asynchronous=False)
    r.config_set("slowlog-log-slower-than", 0)
    r.config_set("slowlog-max-len", 128)
    M = max_limit(r)
    rows = []

    def timed(argv: list) -> tuple[int, float, list]:
        r.slowlog_reset()
        cpu0 = main_thread_cpu_us(r)
        reply = r.execute_command(*argv)
        cpu1 = main_thread_cpu_us(r)
        name = str(argv[0]).upper().encode()
        took = [e["duration"] for e in r.slowlog_get(128) if e["command"].split(b" ", 1)[0].upper() == name]
        return max(took), cpu1 - cpu0, reply

    def case(label: str, command: str, prepare: Callable[[int], list],
             check: Callable[[list], bool] = lambda reply: True) -> None:
        if command in missing:
            rows.append({"call": label, "usec": None, "status": missing[command]})
            return
        try:
            usecs, cpus = [], []
            for i in range(WORST_REPS):
                argv = prepare(i)
                us, cpu, reply = timed(argv)
                if not check(reply):
                    raise RuntimeError(f"unexpected reply {reply} to {' '.join(map(str, argv))[:80]}")
                usecs.append(us)
                cpus.append(cpu)
            rows.append({"call": label, "max_limit": M, "usec": statistics.median(usecs), "usec_max": max(usecs),
                         "usecs": usecs,
                         "cpu_usec": round(statistics.median(cpus)), "reply": reply,
                         "argv": " ".join(map(str, argv))[:200]})
        except redis.ResponseError as e:
            rows.append({"call": label, "usec": None, "status": f"n/a ({str(e)[:80]})"})

    case(f"SLIDE COST {M:,} (the default max-limit) on a fresh key", "WINLIMIT.SLIDE",
         lambda i: ["WINLIMIT.SLIDE", f"w:fresh:{i}", 60000, M, "COST", M], lambda x: x[0] == 1)
    pairs = [w for ms in (1000, 2000, 5000, 10000, 20000, 30000, 45000, 60000) for w in (ms, M)]
    case(f"SLIDE with 8 windows, COST {M:,}, on a fresh key", "WINLIMIT.SLIDE",
         lambda i: ["WINLIMIT.SLIDE", f"w:fresh8:{i}", *pairs, "COST", M], lambda x: x[0] == 1)

    def left_window(i: int) -> list:
        """Logs of M entries recorded by the module, called again once they all left the
        window but before the keys expired (the expiry slack): the call finds nothing counts.
        The first repetition fills every key and waits once."""
        window = 2000
        if i == 0:
            for k in range(WORST_REPS):
                r.execute_command("WINLIMIT.SLIDE", f"w:leave:{k}", window, M, "COST", M)
            recorded = now_ms(r)  # every entry is at or before this; the keys expire a slack later
            time.sleep(max(0, recorded + window + 10 - now_ms(r)) / 1000)
        if r.pttl(f"w:leave:{i}") < 0:
            raise redis.ResponseError("the key expired before the call")
        return ["WINLIMIT.SLIDE", f"w:leave:{i}", window, M]

    case(f"first SLIDE after a full log of {M:,} left the window (before the key expired)",
         "WINLIMIT.SLIDE", left_window, lambda x: x[0] == 1 and x[2] == M - 1)

    def prefill(key: str, first: int, last: int, window: int) -> None:
        """M entries in the module's member format, scores spread from first to last."""
        step = (last - first) / max(1, M - 1)
        for start in range(0, M, 1000):
            r.zadd(key, {str(1_000_000_000 + i): first + int(i * step) for i in range(start, min(start + 1000, M))})
        r.pexpireat(key, last + window + min(window // 8, 60000))

    def part_left(i: int) -> list:
        now = now_ms(r)
        prefill(f"w:trim:{i}", now - 75000, now - 1, 60000)  # a fifth left the window
        return ["WINLIMIT.SLIDE", f"w:trim:{i}", 60000, M]

    case(f"SLIDE on a log of {M:,} whose oldest fifth left the window (a batch trim)", "WINLIMIT.SLIDE",
         part_left, lambda x: x[0] == 1)

    for cost in (M // 2, M):
        def full(i: int, cost=cost) -> list:
            if i == 0:  # a rejection records nothing: one log serves every repetition
                now = now_ms(r)
                prefill(f"w:full:{cost}", now - 59000, now - 1, 60000)
            return ["WINLIMIT.SLIDE", f"w:full:{cost}", 60000, M, "COST", cost]

        case(f"rejected SLIDE COST {cost:,} on a full log of {M:,} distinct times (computes retry_after)",
             "WINLIMIT.SLIDE", full, lambda x: x[0] == 0 and x[3] > 0)

    case("SLIDE BUCKET 60 COST 10^12 on a fresh key (1,000 buckets)", "WINLIMIT.SLIDE",
         lambda i: ["WINLIMIT.SLIDE", f"w:bucket:{i}", 60000, 10**12, "BUCKET", 60, "COST", 10**12],
         lambda x: x[0] == 1)

    held = {}

    def bucket_full(i: int, half: bool) -> list:
        """1,001 buckets of 1 ms filled by real calls for 1.1 s (once); then a COST that needs
        the newest (or the middle) bucket to leave."""
        key = "w:bkfull"
        if "counted" not in held:
            end = time.monotonic() + 1.1
            reply = None
            while time.monotonic() < end:
                pipe = r.pipeline(transaction=False)
                for _ in range(20):
                    pipe.execute_command("WINLIMIT.SLIDE", key, 1000, 10**12, "BUCKET", 1)
                reply = pipe.execute()[-1]
            held["counted"] = 10**12 - int(reply[2])
        counted = held["counted"]
        return ["WINLIMIT.SLIDE", key, 1000, counted, "BUCKET", 1, "COST", counted // 2 if half else counted]

    for half in (True, False):
        case(f"rejected SLIDE BUCKET 1 COST {'half of ' if half else ''}what 1,001 full buckets hold "
             f"(computes retry_after)", "WINLIMIT.SLIDE",
             lambda i, half=half: bucket_full(i, half), lambda x: x[0] == 0 and x[3] > 0)

    case("GCRA COST 10^12", "WINLIMIT.GCRA",
         lambda i: ["WINLIMIT.GCRA", f"w:gcra:{i}", 10**12, 10**12, "COST", 10**12], lambda x: x[0] == 1)
    case("FIXED COST 10^12", "WINLIMIT.FIXED",
         lambda i: ["WINLIMIT.FIXED", f"w:fixed:{i}", 60000, 10**12, "COST", 10**12], lambda x: x[0] == 1)
    r.config_set("slowlog-log-slower-than", 10000)
    r.config_set("slowlog-max-len", 128)
    r.flushall(asynchronous=False)
    return rows


# --------------------------------------------------------------------------
# sanity checks before measuring


def sanity(r: redis.Redis, shas: dict) -> None:
    r.flushall(asynchronous=False)
    for sha, key in ((shas["slide"], "chk:lsl"), (shas["fixed"], "chk:lfx")):
        got = [r.evalsha(sha, 1, key, 60000, 3)[0] for _ in range(4)]
        assert got == [1, 1, 1, 0], f"Lua script {sha} on limit 3 gave {got}"
        assert 0 < r.pttl(key) <= 60000, f"Lua key {key} has pttl {r.pttl(key)}"
    assert r.zcard("chk:lsl") == 3 and r.get("chk:lfx") == "3"
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
             for k in ("ops", "p50_ms", "p99_ms", "srv_usec_per_call", "srv_cpu_usec_per_op", "srv_cpu_busy")}
        m["ops_min"] = min(x["ops"] for x in c.rounds)
        m["ops_max"] = max(x["ops"] for x in c.rounds)
        m["usec_min"] = min(x["srv_usec_per_call"] for x in c.rounds)
        m["usec_max"] = max(x["srv_usec_per_call"] for x in c.rounds)
        if all("accepted_frac" in x for x in c.rounds):
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


def evaluate_targets(cs: list[Contender], summary: dict, memory: list[dict], state_memory: list[dict],
                     aof: list[dict], worst: list[dict]) -> list[dict]:
    status = {c.name: c.status for c in cs}
    t = []

    def unmeasured(*names) -> str:
        why = [f"{n}: {status[n]}" if status.get(n) else f"{n} not run" for n in names if n not in summary]
        return "not measured (" + "; ".join(why) + ")"

    rounds = {c.name: c.rounds for c in cs}

    def paired(a, b, key) -> tuple[float, float, float]:
        """The median, least and greatest of the per-round ratios a/b: both ran in the same
        round, so a slow drift of the machine's load (another build for a minute) cancels."""
        ratios = [x[key] / y[key] for x, y in zip(rounds[a], rounds[b])]
        return statistics.median(ratios), min(ratios), max(ratios)

    def ops_target(label, a, b, threshold):
        if a in summary and b in summary:
            v, lo, hi = paired(a, b, "ops")
            t.append({"target": label, "value": f"{v:.2f}x (per-round ratios {lo:.2f}..{hi:.2f}; "
                                                f"ratio of the medians {summary[a]['ops'] / summary[b]['ops']:.2f})",
                      "ratio": v, "pass": v >= threshold})
        else:
            t.append({"target": label, "value": unmeasured(a, b), "pass": None})

    def us_target(label, a, b, factor):
        if a in summary and b in summary:
            x, y = summary[a]["srv_usec_per_call"], summary[b]["srv_usec_per_call"]
            v, lo, hi = paired(a, b, "srv_usec_per_call")
            t.append({"target": label, "value": f"{v:.2f}x (per-round ratios {lo:.2f}..{hi:.2f}; medians "
                                                f"{x:.2f} vs {y:.2f} µs/call)",
                      "ratio": v, "pass": v <= factor})
        else:
            t.append({"target": label, "value": unmeasured(a, b), "pass": None})

    ops_target(f"FIXED >= {T_FIXED_VS_INCR} x INCR (ops/s, random keys)", "FIXED", "INCR", T_FIXED_VS_INCR)
    us_target("FIXED server µs/call <= 1/2 of redis-cell's", "FIXED", "REDIS_CELL", T_FIXED_VS_CELL_US)
    ops_target(f"SLIDE >= {T_SLIDE_VS_LUA:g} x the Lua sliding log (ops/s, random keys)",
               "SLIDE", "LUA_SLIDE", T_SLIDE_VS_LUA)
    ops_target(f"SLIDE >= {T_HOT_VS_LUA:g} x the Lua sliding log (ops/s, hot key)",
               "SLIDE_HOT", "LUA_SLIDE_HOT", T_HOT_VS_LUA)
    us_target("SLIDE server µs/call <= redis-cell's", "SLIDE", "REDIS_CELL", 1.0)
    us_target("GCRA server µs/call <= 1/1.8 of redis-cell's", "GCRA", "REDIS_CELL", T_GCRA_VS_CELL_US)
    us_target("CL.THROTTLE (cell-compat) server µs/call <= 1/1.8 of redis-cell's", "CELL_COMPAT", "REDIS_CELL",
              T_GCRA_VS_CELL_US)
    us_target("BUCKET steady state server µs/call <= redis-cell's", "BUCKET_STEADY", "REDIS_CELL", 1.0)
    bucket = next((m for m in state_memory if m["contender"] == "BUCKET"), None)
    label = "BUCKET key with all 61 buckets of `60000 ... BUCKET 1000` < 2 KB"
    if bucket and "bytes" in bucket:
        n = bucket.get("buckets_per_key")
        as_specified = "`60000 " in bucket["call"] and n in (None, 61)
        t.append({"target": label, "value": f"{bucket['bytes']:,.0f} B ({bucket['call']}"
                                            f"{'' if n in (None, 61) else f'; only {n} buckets held'})",
                  "pass": bucket["bytes"] < T_BUCKET_61_BYTES if as_specified else None})
    else:
        t.append({"target": label, "value": f"not measured ({bucket['status'] if bucket else 'not run'})",
                  "pass": None})
    us_target(f"two windows <= {T_TWO_WINDOWS_US} x the server µs of one", "SLIDE_TWO_WINDOWS", "SLIDE",
              T_TWO_WINDOWS_US)

    rows = {a["contender"]: a for a in aof}

    def aof_target(label, name, ok):
        a = rows.get(name)
        if a is None or "bytes_per_call" not in a:
            t.append({"target": label, "value": f"not measured ({a['status'] if a else 'not run'})", "pass": None})
        else:
            t.append({"target": label, "value": f"{a['bytes_per_call']:.1f} B, {a['commands_per_call']:.3f} "
                                                f"commands and {a['multi_per_call']:.3f} MULTI per call",
                      "pass": ok(a)})

    one_command = lambda a: a["commands_per_call"] <= 1.01 and a["multi_per_call"] <= 0.01  # noqa: E731
    aof_target(f"an accepted SLIDE appends <= {T_SLIDE_AOF_BYTES} B to the AOF, one command, no MULTI/EXEC",
               "SLIDE", lambda a: a["bytes_per_call"] <= T_SLIDE_AOF_BYTES and one_command(a))
    for name, what in (("FIXED", "FIXED"), ("GCRA", "GCRA"), ("BUCKET_FRESH", "BUCKET")):
        aof_target(f"{what}: one replicated command per accepted call in the steady state", name, one_command)

    timed = [w for w in worst if w.get("usec") is not None]
    label = f"no single call at default settings over {T_WORST_CALL_US // 1000} ms"
    if timed:
        w = max(timed, key=lambda x: x["usec"])
        t.append({"target": label, "value": f"longest {w['usec']:,.0f} µs, median of {WORST_REPS} calls "
                                            f"(the longest single one {w['usec_max']:,} µs) ({w['call']})",
                  "pass": w["usec"] <= T_WORST_CALL_US})
    else:
        t.append({"target": label, "value": "not measured", "pass": None})

    mem = {(m["contender"], m["limit"]): m for m in memory}
    for limit in MEMORY_LIMITS:
        a, b = mem.get(("SLIDE", limit)), mem.get(("LUA_SLIDE", limit))
        label = f"SLIDE memory <= the Lua sliding log's, limit {limit:,}"
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
    ops_target(f"SLIDE on a full window of 10,000 >= {T_SIZE_FLAT} x its speed on 10 entries",
               "SLIDE_FULL_10000", "SLIDE_FULL_10", T_SIZE_FLAT)
    return t


def fmt_ops(x: float) -> str:
    return f"{x:,.0f}"


def fmt_x(x) -> str:
    return "" if x is None else f"{x:.2f}"


def verdict(p) -> str:
    return {True: "PASS", False: "FAIL", None: "SKIP"}[p]


def write_markdown(path: Path, info: dict, cfg: dict, cs: list[Contender], summary: dict,
                   memory: list[dict], state_memory: list[dict], aof: list[dict], worst: list[dict],
                   targets: list[dict]) -> None:
    L = []
    L.append("# winlimit benchmark results\n")
    L.append(f"Generated by `bench/bench.py` on {info['date']} in {cfg['runtime_s']:.0f} s.\n")
    if cfg["quick"]:
        L.append("**`--quick` smoke run: too few requests and a single round; the figures "
                 "and verdicts below are not meaningful.**\n")
    L.append("## Machine\n")
    L.append("| | |\n|---|---|")
    for k, label in (("nproc", "nproc"), ("cpu", "CPU"), ("memory", "RAM"), ("kernel", "kernel"),
                     ("redis_server", "redis-server"), ("redis_benchmark", "redis-benchmark"),
                     ("git_commit", "git commit"), ("module", "module"), ("cell", "redis-cell"),
                     ("loadavg_at_start", "load average at start")):
        L.append(f"| {label} | {info.get(k, '')} |")
    L.append("")
    L.append(f"redis-benchmark: {CLIENTS} clients, pipeline {PIPELINE}, `-r {KEYSPACE}` (unless the "
             f"scenario says otherwise), {cfg['requests']:,} requests per run, {cfg['rounds']} round(s) "
             f"alternating forward and backward (median reported), redis-benchmark threads: {cfg['threads']}. The keyspace is "
             f"flushed before every run (then prefilled or warmed up where the scenario says so), and "
             f"`CONFIG RESETSTAT` precedes every run.\n")
    L.append("## Throughput and server time per call (median of rounds)\n")
    L.append("| contender | scenario | ops/s | server µs/call | p50 ms | p99 ms | server CPU | accepted | "
             "x INCR | x Lua | ops/s min..max | µs/call min..max |")
    L.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for c in cs:
        m = summary.get(c.name)
        if not m:
            L.append(f"| {c.name} | {c.describe} | {c.status or 'not run'} | | | | | | | | | |")
            continue
        acc = f"{m['accepted_frac'] * 100:.1f}%" if "accepted_frac" in m else ""
        L.append(f"| {c.name} | {c.describe} | {fmt_ops(m['ops'])} | {m['srv_usec_per_call']:.2f} | "
                 f"{m['p50_ms']:.3f} | {m['p99_ms']:.3f} | {m['srv_cpu_busy'] * 100:.0f}% | {acc} | "
                 f"{fmt_x(m['x_incr'])} | {fmt_x(m['x_lua'])} | {fmt_ops(m['ops_min'])}..{fmt_ops(m['ops_max'])} | "
                 f"{m['usec_min']:.2f}..{m['usec_max']:.2f} |")
    L.append("")
    L.append("- *ops/s*: what a client sees on this box, where redis-benchmark shares the cores with the server.")
    L.append("- *server µs/call*: `usec_per_call` of the contender's command in `INFO commandstats` "
             "(time spent executing the command or script inside redis-server, without network I/O), "
             "per run after `CONFIG RESETSTAT`: what a dedicated server pays; the fair figure between "
             "two native commands. Redis times a call by the wall clock, so when other processes "
             "take the cores (server CPU well below 100%) preemption inflates it too.")
    L.append("- *server CPU*: redis-server's user+sys CPU time during the run / the run's wall time "
             "(near 100%: the server is the bottleneck; well below: redis-benchmark is).")
    L.append("- *accepted*: share of calls accepted (winlimit: `INFO winlimit`; Lua: units the keys hold "
             "after the run).")
    L.append("- *x Lua*: ops/s of a native command divided by ops/s of its Lua counterpart in the "
             "same scenario.")
    L.append("- Latencies are as measured by redis-benchmark with pipelining (a request's latency "
             "includes waiting for its pipeline batch).\n")
    if aof:
        L.append("## Replication: what one call appends to the AOF (steady state)\n")
        L.append("| contender | call | bytes/call | replicated commands/call | MULTI/EXEC per call | commands |")
        L.append("|---|---|---:|---:|---:|---|")
        for a in aof:
            if "bytes_per_call" not in a:
                L.append(f"| {a['contender']} | | {a['status']} | | | |")
                continue
            cmds = ", ".join(f"{k} {v:.3f}" for k, v in a["commands"].items())
            note = f" ({a['note']})" if a.get("note") else ""
            L.append(f"| {a['contender']} | `{a['call']}`{note} | {a['bytes_per_call']:.1f} | "
                     f"{a['commands_per_call']:.3f} | {a['multi_per_call']:.3f} | {cmds} |")
        n_calls = next((a["calls"] for a in aof if "calls" in a), AOF_CALLS)
        L.append(f"\nEach on a fresh server with `appendonly yes` (`appendfsync no`): {n_calls:,} calls "
                 f"after every key already exists (100 keys warmed up by 20 calls each, or the "
                 f"scenario's warm-up), limits high enough that every call is accepted. Bytes are what "
                 f"the AOF grew by, divided by the calls; commands are counted by parsing it. Redis wraps "
                 f"a call that replicates two or more commands in MULTI/EXEC. Key names are 14 bytes "
                 f"(`a:` + 12 digits).\n")
    if worst:
        L.append("## Worst case: the longest single calls at default settings\n")
        L.append("| call | server µs (median) | longest | main-thread CPU µs (median) |\n|---|---:|---:|---:|")
        for w in worst:
            if w.get("usec") is None:
                L.append(f"| {w['call']} | {w.get('status', '')} | | |")
            else:
                L.append(f"| {w['call']} | {w['usec']:,.0f} | {w['usec_max']:,} | {w['cpu_usec']:,} |")
        L.append(f"\nEach case called {WORST_REPS} times at default settings (`winlimit.max-limit` "
                 f"{next((w['max_limit'] for w in worst if 'max_limit' in w), '?'):,}); durations from SLOWLOG (`slowlog-log-slower-than 0`). "
                 "They are wall time: on this shared machine a call now and then is preempted and takes "
                 "several times its work, so the median is the figure and the target's measure; the "
                 "main thread's CPU time around the call (`INFO cpu`, including the INFO call itself) is "
                 "not inflated by preemption. The sliding logs are filled by the command itself or by "
                 "ZADD in its member format.\n")
    if memory or state_memory:
        L.append("## Memory per key\n")
    if memory:
        L.append("### A full window: `MEMORY USAGE key SAMPLES 0`\n")
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
                 "(window 60000 ms; the last call was rejected); mean over 20 keys (10 at 10,000; 5 "
                 "with --quick): skiplist node levels are random, so equal contents differ by "
                 "a few hundred bytes. SLIDE stores members as a per-key sequence of 10-digit "
                 "integers within 32 bits, the Lua log the microsecond time (16 digits).\n")
    if state_memory:
        L.append("### The other algorithms\n")
        L.append("| contender | key | MEMORY USAGE | encoding |\n|---|---|---:|---|")
        for m in state_memory:
            if "bytes" in m:
                L.append(f"| {m['contender']} | {m['call']} | {m['bytes']:,.0f} B | {m['encoding']} |")
            else:
                L.append(f"| {m['contender']} | {m['call']} | {m['status']} | |")
        L.append(f"\nMean of {MEM_KEYS} keys each. The BUCKET keys were filled by the command itself, one "
                 f"call per key per bucket for longer than the window, on a server of their own.\n")
    L.append("## Targets\n")
    L.append("A ratio between two contenders is the median of their per-round ratios (both ran in "
             "the same round, so a drift of the machine's load cancels); the ratio of the medians "
             "of the table is shown too.\n")
    for t in targets:
        L.append(f"- {verdict(t['pass'])}: {t['target']}: {t['value']}")
    L.append("")
    L.append("![chart](latest.png)\n")
    path.write_text("\n".join(L))


COLORS = {"core": "#888888", "native": "#2b7bba", "lua": "#e08a2c", "cell": "#4a9a4a"}


def write_chart(path: Path, cs: list[Contender], summary: dict, memory: list[dict]) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch

    names = [c.name for c in cs if c.name in summary]
    kinds = [c.kind for c in cs if c.name in summary]
    y = list(range(len(names)))[::-1]
    fig, axes = plt.subplots(1, 3, figsize=(20, 7), gridspec_kw={"width_ratios": [3, 3, 2]})
    for ax, key, lo_key, hi_key, scale, xlabel, title, fmt in (
            (axes[0], "ops", "ops_min", "ops_max", 1e-3, "thousand ops/s (median; whiskers: min..max of rounds)",
             f"Throughput: redis-benchmark, {CLIENTS} clients, pipeline {PIPELINE}", "{:,.0f}k"),
            (axes[1], "srv_usec_per_call", "usec_min", "usec_max", 1.0,
             "server µs per call (INFO commandstats; median, whiskers: min..max)",
             "Server time per call (lower is better)", "{:.2f}")):
        v = [summary[n][key] * scale for n in names]
        lo = [summary[n][key] * scale - summary[n][lo_key] * scale for n in names]
        hi = [summary[n][hi_key] * scale - summary[n][key] * scale for n in names]
        ax.barh(y, v, xerr=[lo, hi], color=[COLORS[k] for k in kinds], capsize=2)
        ax.set_yticks(y, names)
        ax.set_xlabel(xlabel)
        ax.set_title(title)
        for yi, vi, h in zip(y, v, hi):
            ax.text(vi + h, yi, "  " + fmt.format(vi), va="center", fontsize=8)
        ax.grid(axis="x", alpha=0.3)
    fig.legend(handles=[Patch(color=COLORS[k], label=lbl) for k, lbl in
                        (("core", "core command (ceiling)"), ("native", "winlimit"),
                         ("lua", "Lua script (EVALSHA)"), ("cell", "redis-cell"))], loc="lower center", ncol=4)
    ax = axes[2]
    if memory:
        series = [("SLIDE", "#2b7bba"), ("LUA_SLIDE", "#e08a2c"), ("FIXED", "#7fb3de"), ("LUA_FIXED", "#f2c18d")]
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
    fig.tight_layout(rect=(0, 0.05, 1, 1))
    fig.savefig(path, dpi=100)
    plt.close(fig)


# --------------------------------------------------------------------------


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

    global REDIS_BENCHMARK
    REDIS_BENCHMARK = args.redis_benchmark
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
        print(f"redis-server pid {server.proc.pid} on 127.0.0.1:{server.port}"
              f"{' with ' + str(args.module) if with_module else ' (no module)'}"
              + (f"; redis-cell on pid {cell.proc.pid}, 127.0.0.1:{cell.port}" if cell else ""), flush=True)
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
