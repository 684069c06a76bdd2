"""Memory per key of every algorithm, and of the bucketed log filled in real time."""

from __future__ import annotations

import statistics
import threading
from typing import Callable

import redis

from winbench.config import MEMORY_LIMITS
from winbench.contenders import fill_buckets
from winbench.servers import Server


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
                replies = fill_full(r, lambda p, key=key, limit=limit, call=call: call(p, key, limit), limit)
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
