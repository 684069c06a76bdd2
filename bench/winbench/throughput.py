"""Throughput and server µs per call, driven by redis-benchmark; the sanity check of the Lua
scripts before anything is measured."""

from __future__ import annotations


import time

import redis

from winbench.contenders import Contender
from winbench.redis_benchmark import run_benchmark


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
    """Accepted calls of `command` so far, from INFO winlimit (None when the server has no
    such counter: core commands, Lua, redis-cell). CONFIG RESETSTAT leaves it: runs take the
    difference."""
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
    allowed_before = winlimit_allowed(r, c.command) if c.kind == "native" else None
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
    allowed = winlimit_allowed(r, c.command) if allowed_before is not None else None
    if allowed is not None:
        res["accepted_frac"] = (allowed - allowed_before) / calls
    elif c.held:
        res["accepted_frac"] = c.held(r) / requests
    return res


def sanity(r: redis.Redis, shas: dict) -> None:
    r.flushall(asynchronous=False)
    for sha, key in ((shas["slide"], "chk:lsl"), (shas["fixed"], "chk:lfx")):
        got = [r.evalsha(sha, 1, key, 60000, 3)[0] for _ in range(4)]
        assert got == [1, 1, 1, 0], f"Lua script {sha} on limit 3 gave {got}"
        assert 0 < r.pttl(key) <= 60000, f"Lua key {key} has pttl {r.pttl(key)}"
    assert r.zcard("chk:lsl") == 3 and r.get("chk:lfx") == "3"
    r.flushall(asynchronous=False)
