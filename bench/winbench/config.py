"""Where the bench finds things, how hard it drives the server, and its targets."""

from __future__ import annotations

import shutil
from pathlib import Path


BENCH_DIR = Path(__file__).resolve().parent.parent  # bench/
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

# The wall-time targets (what instructions cannot show); cost targets are in winbench.instr.
T_SLIDE_AOF_BYTES = 80
T_WORST_CALL_US = 10_000
T_BUCKET_61_BYTES = 2048
