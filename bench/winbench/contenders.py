"""The contenders: one table of every command the bench measures, with how to prepare its
keys, what it records and how to measure its replication."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Callable

import redis
from kit import bucket_layout

from winbench import config
from winbench.config import KEYSPACE, R
from winbench.redis_benchmark import run_benchmark


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
            run_benchmark(config.REDIS_BENCHMARK, port, argv, 50 * keys, 1, keys)
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
