"""Replication cost: bytes and commands appended to the AOF per call."""

from __future__ import annotations

import collections
import shutil
import time
from pathlib import Path

from kit.aof import aof_paths, command_names
from winbench.config import LUA_DIR, MODULE_ARGS, TMP
from winbench.contenders import Contender
from winbench.servers import Server
from winbench.redis_benchmark import run_benchmark
from winbench.throughput import winlimit_allowed


AOF_CALLS = 20_000


def newest_aof(workdir: Path) -> tuple[str, bytes]:
    """The AOF being appended to (the newest file) and its bytes."""
    paths = aof_paths(str(workdir))
    path = Path(paths[-1]) if paths else workdir / "appendonly.aof"
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
            # INFO winlimit's counters outlive CONFIG RESETSTAT: the run's are the difference.
            allowed_before = winlimit_allowed(r, c.command) if c.kind == "native" else None
            before = newest_aof(srv.workdir)
            run_benchmark(rb, srv.port, argv, calls, 1, c.aof.keys)
            r.execute_command("PING")  # the AOF is written before the replies
            after = newest_aof(srv.workdir)
            appended = after[1][len(before[1]):] if after[0] == before[0] else after[1]
            names = collections.Counter(command_names(appended))
            multi = names.get("MULTI", 0)
            replicated = sum(v for k, v in names.items() if k not in ("MULTI", "EXEC", "SELECT"))
            allowed = winlimit_allowed(r, c.command) if allowed_before is not None else None
            allowed = None if allowed is None else allowed - allowed_before
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
